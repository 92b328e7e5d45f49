import { npmTools } from "@skillport/testing";

export const CONFORMANCE_VERSION = "0.2.0-alpha.12";

export interface ConformanceRuntime {
  /** Node ≥ 22 (the conformance suite needs it; the repository's floor is Node 20). */
  node: string;
  /** The suite's CLI script. */
  cli: string;
}

/** `@modelcontextprotocol/conformance` and Node 22, installed once into the test cache (see `npmTools`). */
export async function conformanceRuntime(): Promise<ConformanceRuntime | { skip: string }> {
  const tools = await npmTools(`mcp-conformance-${CONFORMANCE_VERSION}`, [
    `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`,
  ]);
  if ("skip" in tools) return tools;
  return { node: tools.node, cli: tools.file("@modelcontextprotocol/conformance", "dist/index.js") };
}
