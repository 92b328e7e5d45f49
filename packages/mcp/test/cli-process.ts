import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
/** The built CLI bundle (npm run build). */
export const cli = path.join(repo, "packages/cli/dist/cli.js");

/** Starts `skillport mcp --http 127.0.0.1:0`; resolves with the URL it prints on stderr. */
export function startHttp(
  roots: string[],
  env: Record<string, string>,
  extra: string[] = [],
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [cli, "mcp", ...roots, "--http", "127.0.0.1:0", ...extra], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
      const match = / at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match?.[1] !== undefined) resolve({ url: match[1], child, stderr: () => stderr });
    });
    child.on("exit", (code) => reject(new Error(`skillport mcp exited ${code}: ${stderr}`)));
  });
}
