// Node-only helpers (real-path confinement and friends). The rest of @skillport/core avoids Node APIs.
export { isInside, resolveConfined, resolveConfinedSync, type ResolveConfinedOptions } from "./confine.js";
