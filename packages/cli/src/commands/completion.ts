import { Argument, type Command } from "commander";
import type { CliOutput } from "../io.js";
import type { CommandEntry, RegisterCommand } from "./command-entry.js";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/** One command of the tree, as a completion script needs it. `path` is "" for the program, "plugin build" for a sub. */
interface Node {
  path: string;
  description: string;
  options: { long?: string; short?: string; description: string; takesValue: boolean }[];
  subcommands: Node[];
}

/**
 * `skillport completion bash|zsh|fish`: a completion script generated from the program itself, so it never drifts.
 * The command table is passed in (commands/index.ts lists this module), so neither module imports the other.
 */
export function completionCommand(commands: readonly CommandEntry[]): RegisterCommand {
  return (program, io) => registerCompletion(program, io, commands);
}

function registerCompletion(program: Command, io: CliOutput, commands: readonly CommandEntry[]): void {
  program
    .command("completion")
    .description("print a shell completion script: commands, subcommands and options (file names where a path goes)")
    .addArgument(new Argument("<shell>", "the shell").choices(SHELLS))
    .addHelpText(
      "after",
      "\nInstall:\n  bash  echo 'source <(skillport completion bash)' >> ~/.bashrc\n" +
        '  zsh   skillport completion zsh > "${fpath[1]}/_skillport"   (or: source <(skillport completion zsh))\n' +
        "  fish  skillport completion fish > ~/.config/fish/completions/skillport.fish",
    )
    .action(async (shell: Shell) => {
      io.stdout(script(shell, await commandTree(program.name(), program, commands)));
    });
}

/** Every command registered on a fresh program (each module loaded), walked into a tree. */
async function commandTree(name: string, running: Command, commands: readonly CommandEntry[]): Promise<Node> {
  const { Command: CommandClass } = await import("commander");
  const full = new CommandClass(name);
  for (const option of running.options) full.addOption(option);
  const quiet: CliOutput = {
    stdout: () => undefined,
    stderr: () => undefined,
    data: () => undefined,
    status: () => undefined,
    color: false,
    cwd: ".",
  };
  for (const entry of commands) (await entry.load())(full, quiet, () => undefined);
  return walk(full, "");
}

function walk(command: Command, path: string): Node {
  const help = { long: "--help", short: "-h", description: "display help", takesValue: false };
  return {
    path,
    description: command.description().split(/(?<=\.)\s/)[0] ?? "",
    options: [
      ...command.options.map((o) => ({
        long: o.long,
        short: o.short,
        description: o.description,
        takesValue: o.required || o.optional,
      })),
      help,
    ],
    subcommands: command.commands.map((sub) => walk(sub, path === "" ? sub.name() : `${path} ${sub.name()}`)),
  };
}

function all(node: Node): Node[] {
  return [node, ...node.subcommands.flatMap(all)];
}

const flags = (node: Node) =>
  node.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
const leaf = (node: Node) => node.path.slice(node.path.lastIndexOf(" ") + 1);
const single = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function script(shell: Shell, tree: Node): string {
  const nodes = all(tree);
  const paths = nodes
    .filter((n) => n.path !== "")
    .map((n) => single(n.path))
    .join("|");
  if (shell === "bash") {
    const cases = nodes.map(
      (n) =>
        `    ${single(n.path)}) subs=${single(n.subcommands.map(leaf).join(" "))}; opts=${single(flags(n).join(" "))} ;;`,
    );
    return [
      "# skillport completion for bash. Load it: source <(skillport completion bash)",
      "_skillport() {",
      '  local cur="${COMP_WORDS[COMP_CWORD]}" cmdpath="" next subs="" opts="" i',
      "  for ((i = 1; i < COMP_CWORD; i++)); do",
      '    next="${cmdpath:+$cmdpath }${COMP_WORDS[i]}"',
      `    case "$next" in ${paths}) cmdpath="$next" ;; esac`,
      "  done",
      '  case "$cmdpath" in',
      ...cases,
      "  esac",
      '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
      '  elif [[ -n $subs ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur"))',
      "  else COMPREPLY=()",
      "  fi",
      "}",
      "complete -o default -F _skillport skillport",
      "",
    ].join("\n");
  }
  if (shell === "zsh") {
    const cases = nodes.map(
      (n) =>
        `    (${single(n.path)}) subs=(${n.subcommands.map((s) => single(`${leaf(s)}:${s.description}`)).join(" ")}); opts=(${flags(n).join(" ")}) ;;`,
    );
    return [
      "#compdef skillport",
      "# skillport completion for zsh. Save as _skillport in a folder of $fpath, or: source <(skillport completion zsh)",
      "_skillport() {",
      '  local cmdpath="" next i',
      "  local -a subs opts",
      "  for ((i = 2; i < CURRENT; i++)); do",
      '    next="${cmdpath:+$cmdpath }${words[i]}"',
      `    case "$next" in (${paths}) cmdpath="$next" ;; esac`,
      "  done",
      '  case "$cmdpath" in',
      ...cases,
      "  esac",
      "  if [[ $PREFIX == -* ]]; then compadd -- $opts",
      "  elif (( ${#subs} )); then _describe command subs",
      "  else _files",
      "  fi",
      "}",
      'if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then _skillport "$@"; else compdef _skillport skillport; fi',
      "",
    ].join("\n");
  }
  const fish = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  const lines = ["# skillport completion for fish. Save as ~/.config/fish/completions/skillport.fish"];
  for (const n of nodes) {
    const words = n.path === "" ? [] : n.path.split(" ");
    const inside = words.map((w) => `__fish_seen_subcommand_from ${w}`);
    const notDeeper =
      n.subcommands.length > 0 ? [`not __fish_seen_subcommand_from ${n.subcommands.map(leaf).join(" ")}`] : [];
    const here = n.path === "" ? (notDeeper.length > 0 ? ["__fish_use_subcommand"] : []) : [...inside, ...notDeeper];
    const condition = here.length > 0 ? ` -n ${fish(here.join("; and "))}` : "";
    for (const s of n.subcommands)
      lines.push(`complete -c skillport${condition} -f -a ${leaf(s)} -d ${fish(s.description)}`);
    const optionCondition = n.path === "" ? "" : ` -n ${fish(inside.join("; and "))}`;
    for (const o of n.options) {
      const long = o.long === undefined ? "" : ` -l ${o.long.slice(2)}`;
      const short = o.short === undefined ? "" : ` -s ${o.short.slice(1)}`;
      lines.push(
        `complete -c skillport${optionCondition}${long}${short}${o.takesValue ? " -r" : ""} -d ${fish(o.description)}`,
      );
    }
  }
  return lines.join("\n") + "\n";
}
