// `@skillport/pack/unpack`: safe unpacking alone, without the packer, the SKILL.md validator or `yaml` — what
// `skillport unpack` loads (decision 0202). Everything here is also exported by the main entry.
export { unpackArchive, type UnpackOptions, type UnpackResult } from "./unpack.js";
