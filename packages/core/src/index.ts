export * from "./errors.js";
export * from "./diagnostics.js";
export * from "./types.js";
export * from "./skill.js";
export * from "./parse.js";
export * from "./validate.js";
