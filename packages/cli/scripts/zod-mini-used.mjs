// What the state and cache files' schemas (decision 0321) use of `zod/mini`. The CLI bundle resolves "zod/mini" to
// this module, so esbuild keeps only these (the readers load zod/mini with `await import`, which would otherwise keep
// every export: ~540 KB). bundle.mjs refuses to build when a reader uses a name missing here.
export {
  array,
  boolean,
  custom,
  enum,
  int,
  literal,
  looseObject,
  nonnegative,
  null,
  number,
  object,
  optional,
  partialRecord,
  record,
  string,
  union,
} from "zod/mini";
