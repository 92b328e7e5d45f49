import { agentEnvironment, listInstalled } from "@skillport/install";
import { asCliErrors } from "../install-source.js";
import { colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";

/** `list --installed`: each installed skill with its source, ref, commit, digest and agents; exit 1 when one drifted. */
export async function listInstalledSkills(
  io: CliOutput,
  global: boolean,
  json: boolean,
  setExit: (code: number) => void,
): Promise<void> {
  await asCliErrors(async () => {
    const rows = await listInstalled(agentEnvironment(process.env, io.cwd), global);
    if (rows.some((r) => r.intact === false)) setExit(EXIT_PROBLEMS);
    if (json) return printJson(io, { installed: rows });
    if (rows.length === 0) return io.stdout("No skills installed.\n");
    const c = colors(io);
    for (const r of rows) {
      const origin =
        r.source === null
          ? "not in skills-lock.json"
          : `${r.source}${r.ref ? `#${r.ref}` : ""}${r.commit ? ` @ ${r.commit.slice(0, 12)}` : ""}`;
      const state = r.intact === false ? c.red("  (modified since install)") : "";
      io.stdout(
        `${c.bold(r.name)}  ${origin}  ${r.computedHash ? r.computedHash.slice(0, 12) : "-"}  [${r.agents.join(", ")}]${state}\n`,
      );
    }
  });
}
