export * from "./toolchain/index.js";
export * from "./host/index.js";
