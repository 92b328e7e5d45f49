// `@skillport/pack/directory`: packing a directory alone, without the archive readers (zip, tar), unpack, inspect
// or `.skill` import — what `skillport pack` loads (decision 0202). Everything here is also exported by the main entry.
export { packDirectory, packDirectoryToFile, type PackOptions, type PackResult, type PackageManifest, type ManifestFile } from "./pack.js";
export { ExclusionRules } from "./exclusions.js";
export { DEFAULT_PACKAGE_PROFILE } from "./layout.js";
