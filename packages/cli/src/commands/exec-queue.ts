import path from "node:path";
import { readFile, stat } from "node:fs/promises";
import { CliError, EXIT_OK, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { importOptional } from "@skillport/core/internal";
import { openPackageStore } from "../runner-packages.js";

interface QueueExecOptions {
  queue: string;
  tenant: string;
  package?: string;
  packages?: string;
  prefix: string;
  timeout: number | undefined;
  cwd?: string;
  json?: boolean;
}

/** `exec --queue`: the same command as a job on the runner pool; prints the same observation, same exit codes. */
export async function execOnQueue(io: CliOutput, command: string, options: QueueExecOptions): Promise<number> {
  if (options.cwd !== undefined)
    throw new CliError(
      "--cwd is not available with --queue: a job starts in its own working folder (the version is $SKILLPORT_VERSION_DIR)",
    );
  const runners = await importOptional("@skillport/runners", "exec --queue", () => import("@skillport/runners"));
  let pkg: { versionId: string; digest: string } | undefined;
  if (options.package !== undefined) {
    if (options.packages === undefined)
      throw new CliError("--package needs --packages <dir|registry url>: the package store the runners read");
    const source = path.resolve(io.cwd, options.package);
    const info = await stat(source).catch(() => undefined);
    if (info === undefined) throw new CliError(`package ${JSON.stringify(options.package)} does not exist`);
    const { inspectPackage, packDirectory } = await import("@skillport/pack");
    const { archive, versionId } = info.isDirectory()
      ? await packDirectory(source)
      : await readArchive(source, inspectPackage);
    pkg = await (await openPackageStore(runners, options.packages, io.cwd)).put(versionId, archive);
  }
  const client = await runners.QueueClient.connect({ queue: options.queue, prefix: options.prefix });
  try {
    const result = await client.run({
      tenant: options.tenant,
      run: { kind: "command", command },
      ...(pkg ? { package: pkg } : {}),
      ...(options.timeout ? { timeoutS: options.timeout } : {}),
    });
    if (options.json) printJson(io, result);
    else {
      if (result.status === "failed" || result.status === "dead-letter")
        io.stderr(`skillport: job ${result.id} ${result.status}: ${result.message ?? result.reason ?? ""}\n`);
      io.data(
        result.observation.endsWith("\n") || result.observation === "" ? result.observation : result.observation + "\n",
      );
    }
    return result.status === "completed" && result.exitCode === 0 ? EXIT_OK : EXIT_PROBLEMS;
  } finally {
    await client.close();
  }
}

async function readArchive(
  file: string,
  inspect: (bytes: Uint8Array) => Promise<{ versionId: string }>,
): Promise<{ archive: Uint8Array; versionId: string }> {
  const archive = new Uint8Array(await readFile(file));
  return { archive, versionId: (await inspect(archive)).versionId };
}
