// The reader of a local copy, in a module of its own so SnapshotSource can load it on first need (decision 0444). A
// static import and a re-export, so the CLI bundle reaches only the provider's own modules, not the whole package.
import { LocalFileSystemSkillProvider } from "@skillport/fs";

export { LocalFileSystemSkillProvider };
