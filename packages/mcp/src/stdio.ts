import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { SkillServer } from "./server.js";

/** Serves `skills` over this process's stdin/stdout (one connection, either protocol era). Close to stop. */
export function serveStdioSkills(skills: SkillServer, onError?: (error: Error) => void): { close(): Promise<void> } {
  return serveStdio(() => skills.createServer(), { ...(onError !== undefined && { onerror: onError }) });
}
