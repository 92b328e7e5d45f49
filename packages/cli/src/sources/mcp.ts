import { importOptional } from "@skillport/core/internal";
import { CliError } from "../io.js";
import type { OpenedSource, OpenSourceOptions } from "./opened-source.js";

/**
 * An MCP server that serves the Skills extension (`mcp+http://…`, `mcp+https://…`, `mcp+stdio:<command>`): read-only,
 * every file verified against the server's entry, `allowed-tools` dropped (decision 0336). The token for HTTP comes
 * from $SKILLPORT_MCP_TOKEN. Needs the optional peer @skillport/mcp.
 */
export async function openMcpSource(address: string, options: OpenSourceOptions): Promise<OpenedSource> {
  const { McpSkillSource } = await importOptional("@skillport/mcp", "the MCP source", () => import("@skillport/mcp"));
  const source = new McpSkillSource({ address });
  if (options.write) throw new CliError(`${source.name} is read-only; copy into a folder or a database instead`);
  return { label: source.name.replace(/\s/g, "_"), provider: source, close: () => source.close() };
}
