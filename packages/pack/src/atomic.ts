// The one atomic-write helper lives in @skillport/core/node; pack re-exports it as part of its API.
export { siblingTemp, writeFileAtomic } from "@skillport/core/node";
