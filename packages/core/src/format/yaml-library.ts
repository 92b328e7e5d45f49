// The YAML library, for any runtime: a plain static import. Node resolves `#yaml-library` to yaml-library-node.ts
// instead (package.json "imports", condition "node"), which loads it on first use; decision 0210.
import * as library from "yaml";

export type YamlLibrary = typeof library;

export function yamlLibrary(): YamlLibrary {
  return library;
}
