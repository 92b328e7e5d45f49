import path from "node:path";
import type { Command } from "commander";
import { unpackArchive } from "@skillport/pack";
import { displayPath, colors, printJson, type CliOutput } from "../io.js";
import { requireFile, size, withFsErrors } from "../package-io.js";

interface UnpackCommandOptions {
  json?: boolean;
}

/** `skillport unpack <archive> <dir>`: safe extraction, checked in full before anything is written. */
export function registerUnpack(program: Command, io: CliOutput, _setExit: (code: number) => void): void {
  program
    .command("unpack")
    .description("safely unpack a package archive (zip, tar, tar.gz, .skill) into a new or empty directory")
    .argument("<archive>", "archive to unpack (format detected from its content)")
    .argument("<dir>", "destination directory (must not exist, or be empty)")
    .option("--json", "print the result as JSON")
    .addHelpText("after", "\nExamples:\n  skillport unpack /tmp/example.zip /tmp/example")
    .action(async (archive: string, dir: string, options: UnpackCommandOptions) => {
      const source = path.resolve(io.cwd, archive);
      await requireFile(source, archive);
      const dest = path.resolve(io.cwd, dir);
      const result = await withFsErrors(() => unpackArchive(source, dest), io.cwd);
      const shown = displayPath(dest, io.cwd);
      if (options.json) {
        printJson(io, {
          format: result.format,
          output: shown,
          versionId: result.versionId,
          digest: result.digest,
          files: result.files.length,
          bytes: result.totalBytes,
          strippedPrefix: result.strippedPrefix ?? null,
          dropped: result.dropped,
        });
        return;
      }
      const c = colors(io);
      const lines = [
        `${c.green("unpacked")} ${result.files.length} files (${size(result.totalBytes)}, ${result.format}) into ${shown}`,
        `versionId ${result.versionId}`,
      ];
      if (result.strippedPrefix !== undefined) lines.push(`stripped wrapper directory ${result.strippedPrefix}/`);
      for (const d of result.dropped) lines.push(`dropped ${d.path}  ${c.dim(d.reason)}`);
      io.stdout(lines.join("\n") + "\n");
    });
}
