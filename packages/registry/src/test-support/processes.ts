import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVER = fileURLToPath(new URL("./server.mjs", import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts test-support/server.mjs (the built package) and waits for its URL. */
export async function startServerProcess(
  database: string,
  blobs: string,
  pauseMarker?: string,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER, database, blobs, ...(pauseMarker ? [pauseMarker] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    child,
    async kill9() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
