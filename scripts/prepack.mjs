// Runs as each workspace package's `prepack`: the repository's LICENSE goes into the tarball (npm takes LICENSE
// only from the package folder). The copy is git-ignored; the repository keeps one LICENSE.
import { copyFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
copyFileSync(path.join(root, "LICENSE"), path.join(process.cwd(), "LICENSE"));
