// `node --import ./record-imports.mjs …`: appends every module URL the program resolves to $RECORD_IMPORTS.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
    import { appendFileSync } from "node:fs";
    export async function resolve(specifier, context, next) {
      const result = await next(specifier, context);
      appendFileSync(${JSON.stringify(process.env.RECORD_IMPORTS)}, result.url + "\\n");
      return result;
    }
  `)}`,
);
