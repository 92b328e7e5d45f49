export * from "./build/index.js";
export * from "./host/index.js";
