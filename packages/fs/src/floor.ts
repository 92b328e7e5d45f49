// `@skillport/fs/floor`: the Node floor alone — one confinement test, one atomic write, one errno reading — for
// start-up paths (a sandboxed command, the packer) that must not load the skill provider, core's parser or `yaml`
// (decision 0202). Everything here is also exported by `@skillport/fs`.
export { isInside } from "./confine.js";
export { siblingTemp, writeFileAtomic } from "./atomic.js";
export { errorCode, isMissing } from "./errno.js";
