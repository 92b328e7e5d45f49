// `@skillport/fs/floor`: the smallest part of the Node floor — one confinement test, one atomic write, one random
// name, one errno reading, writes pinned by folder descriptors into sandbox-writable trees — for start-up paths (a
// sandboxed command) that must not load the skill provider, discovery, core's parser or `yaml` (decision 0202).
// Everything here is also exported by `@skillport/fs`.
export { isInside } from "./confine.js";
export { randomHex, siblingTemp, swapIntoPlace, tempName, writeFileAtomic } from "./atomic.js";
export { errorCode, isMissing } from "./errno.js";
export { MAX_REMOVE_DEPTH, openPinnedDir, PinnedDir, removePinnedTree, type FileOwner, type OpenDirOptions } from "./dir-fd.js";
export { parseStateText, type StateSchema } from "./state-file.js";
