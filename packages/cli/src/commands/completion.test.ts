// `skillport completion bash|zsh|fish`: a script generated from the program itself (issue 20 item 17).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isBuilt, runBuilt } from "../test-support.js";
import { commands } from "./index.js";

const script = (shell: string) => runBuilt(["completion", shell], process.cwd()).stdout.toString();
const PLUGIN_SUBCOMMANDS = ["create", "build", "check", "pack", "run"];

/** Bash's answer for the words typed so far (the last one being completed). */
function bashCompletes(source: string, words: string[]): string[] {
  const program = `${source}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _skillport; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return spawnSync("bash", ["--norc", "-c", program], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
}

describe.skipIf(!isBuilt)("skillport completion", () => {
  it("bash: sourcing it registers the completion for skillport", () => {
    const run = spawnSync("bash", ["--norc", "-c", `${script("bash")}\ncomplete -p skillport`], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("complete -o default -F _skillport skillport");
  });

  it("bash: it completes the real commands, subcommands and each command's options", () => {
    const source = script("bash");
    expect(bashCompletes(source, ["skillport", ""]).sort()).toEqual(commands.map((c) => c.name).sort());
    expect(bashCompletes(source, ["skillport", "va"])).toEqual(["validate"]);
    expect(bashCompletes(source, ["skillport", "plugin", ""]).sort()).toEqual([...PLUGIN_SUBCOMMANDS].sort());
    expect(bashCompletes(source, ["skillport", "plugin", "build", "--en"])).toEqual(["--entry"]);
    expect(bashCompletes(source, ["skillport", "search", "csv", "--min"])).toEqual(["--min-confidence"]);
    expect(bashCompletes(source, ["skillport", "--no"])).toEqual(["--no-color"]);
    // Where a path goes, bash falls back to file names (-o default): the function itself offers nothing.
    expect(bashCompletes(source, ["skillport", "validate", ""])).toEqual([]);
  });

  it.each(["zsh", "fish"])("%s: the script names every command and plugin subcommand", (shell) => {
    const text = script(shell);
    for (const { name } of commands) expect(text).toMatch(new RegExp(`(?:'|-a )${name}[:' ]`));
    for (const sub of PLUGIN_SUBCOMMANDS) expect(text).toContain(shell === "zsh" ? `'plugin ${sub}'` : `-a ${sub} `);
  });

  it("refuses a shell it does not know, exit 2", () => {
    const run = runBuilt(["completion", "powershell"], process.cwd());
    expect(run.code).toBe(2);
    expect(run.stderr.toString()).toMatch(
      /value 'powershell' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish/,
    );
  });
});
