import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { importOptional } from "@skillport/core/internal";
import { readDirectorySync } from "@skillport/fs";
import { exportSkill } from "@skillport/pack";
import { displayPath, colors, type CliOutput } from "../io.js";

/**
 * The last part of `npm start` (`skillport demo --serve`): a registry on an embedded SQLite in a temporary folder with
 * every example skill published (those the registry refuses are named with the reason), its URL, the install line and
 * the MCP line printed; it serves until SIGINT or SIGTERM, then stops, removes the folder and returns.
 */
export async function serveDemoRegistry(io: CliOutput, examples: string, port: number): Promise<void> {
  const c = colors(io);
  const { serveRegistry, mcpAddLine } = await importOptional(
    "@skillport/registry",
    "skillport demo --serve",
    () => import("@skillport/registry"),
  );
  // Taken from here on, so Ctrl-C while the examples are published still stops cleanly.
  let stop = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const temp = await mkdtemp(path.join(os.tmpdir(), "skillport-start-"));
  try {
    const running = await serveRegistry({
      database: `sqlite:${path.join(temp, "registry.db")}`,
      blobs: path.join(temp, "blobs"),
      port,
    });
    try {
      const { store } = running;
      const made = await store.createToken({ user: "demo", scopes: ["admin"], label: "npm start" });
      const actor = await store.authenticate(made.token);
      const published: string[] = [];
      for (const folder of [path.join(examples, "skills"), path.join(examples, "package", "skills")]) {
        for (const entry of readDirectorySync(folder).entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
          if (!entry.isDirectory()) continue;
          const dir = path.join(folder, entry.name);
          try {
            const { archive } = await exportSkill(dir);
            const { version } = await store.publish(archive, { changelog: "Published by npm start." }, actor);
            published.push(version.name);
            io.stdout(
              `  published ${c.bold(`${version.skill}@${version.version}`)} (audit: ${version.audit.verdict})\n`,
            );
          } catch (error) {
            const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
            io.stdout(`  not published ${displayPath(dir, io.cwd)}: ${message}\n`);
          }
        }
      }
      const first = published[0] ?? "<name>";
      io.stdout(
        `\n  registry: ${c.cyan(running.url)}  (web UI at /, API at /openapi.json)\n` +
          `  install:  skillport add ${running.url} --skill ${first}\n` +
          (running.mcp ? `  MCP:      ${mcpAddLine(running.url, "public")}\n` : "") +
          `  data:     ${temp} (removed when it stops)\n` +
          "  Ctrl-C stops it.\n",
      );
      await stopped;
    } finally {
      await running.close();
    }
  } finally {
    // The handlers stay until the process exits: under `npm start`, Ctrl-C reaches this process twice (the terminal's
    // signal to the group, then npm forwarding its own), and the second one must not kill it mid-cleanup.
    await rm(temp, { recursive: true, force: true });
  }
  io.stdout("registry stopped, its temporary folder removed\n");
}
