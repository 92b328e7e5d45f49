// Node-only helpers (real-path confinement and friends). The rest of @skillport/core avoids Node APIs.
export { isInside, resolveConfined, type ResolveConfinedOptions } from "./confine.js";
export { siblingTemp, writeFileAtomic } from "./atomic.js";
export { errorCode, isMissing } from "./errors.js";
