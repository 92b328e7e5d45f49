/**
 * Bash builtins and variables, as the shell policy sees them (docs/decisions/0235). A builtin runs inside bash, so
 * the allow-list alone says nothing about what it does: `eval`, `source`, `trap`, `command`, `exec`, `let`,
 * `mapfile -C`… run or evaluate text, and every builtin that assigns through a name evaluates a subscript in that
 * name (`printf -v 'a[$(…)]'`, `read`, `unset`, `test -v`). So builtins are an allow-list too: those whose
 * arguments are only data, those checked here, and every other one refused, whatever `allowedCommands` says.
 */
import type { ShellCommand, ShellWord } from "./shell-parse.js";

/** Every bash 5.2 builtin (`compgen -b`). A command with one of these names never starts a program of that name. */
const BUILTINS = new Set(
  (
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit " +
    "export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return " +
    "set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait"
  ).split(" "),
);

/** Builtins whose arguments are only data: no name is assigned, no text evaluated (checked against real bash). */
const DATA_BUILTINS = new Set([
  ":",
  "true",
  "false",
  "echo",
  "pwd",
  "cd",
  "dirs",
  "pushd",
  "popd",
  "times",
  "type",
  "help",
  "umask",
  "ulimit",
  "kill",
  "exit",
  "return",
  "shift",
  "break",
  "continue",
  "logout",
]);

/** Why each refused builtin is refused (the rest share one reason). */
const REFUSED: Record<string, string> = {
  eval: "runs its arguments as shell code",
  source: "runs a file as shell code",
  ".": "runs a file as shell code",
  trap: "runs its argument as shell code later",
  let: "evaluates arithmetic, which runs substitutions held in variables",
  command: "starts the program named by its argument",
  builtin: "runs the builtin named by its argument",
  exec: "starts the program named by its argument",
  enable: "loads builtins from shared libraries",
  hash: "can map a command name to another program",
  fc: "re-runs commands",
  jobs: "'jobs -x' starts a program",
  complete: "'complete -C' runs a command",
  compgen: "'compgen -C' runs a command",
  bind: "'bind -x' runs a command",
  mapfile: "its callback '-C' runs code and its array name is evaluated",
  readarray: "its callback '-C' runs code and its array name is evaluated",
  set: "changes how bash runs the rest of the command",
  shopt: "changes how bash runs the rest of the command",
};

/**
 * Bash's own variables, which a command may not assign: integer ones evaluate what is assigned as arithmetic
 * (`RANDOM='a[$(…)]'` runs the substitution), the others change which programs run or how text is read. HOME,
 * LANG, LC_*, TERM, TZ, TMPDIR and the ones bash only writes (REPLY, OPTARG) carry data and stay assignable.
 */
const BASH_VARIABLES = new Set(
  (
    "BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS BASH_COMMAND BASH_COMPAT BASH_ENV " +
    "BASH_EXECUTION_STRING BASH_LINENO BASH_LOADABLES_PATH BASH_REMATCH BASH_SOURCE BASH_SUBSHELL BASH_VERSINFO " +
    "BASH_VERSION BASH_XTRACEFD CDPATH CHILD_MAX COLUMNS COMPREPLY COPROC DIRSTACK EMACS ENV EPOCHREALTIME EPOCHSECONDS " +
    "EUID EXECIGNORE FCEDIT FIGNORE FUNCNAME FUNCNEST GLOBIGNORE GROUPS HISTCMD HISTCONTROL HISTFILE HISTFILESIZE " +
    "HISTIGNORE HISTSIZE HISTTIMEFORMAT HOSTFILE HOSTNAME HOSTTYPE IFS IGNOREEOF INPUTRC INSIDE_EMACS LINENO LINES " +
    "MACHTYPE MAIL MAILCHECK MAILPATH MAPFILE OLDPWD OPTERR OPTIND OSTYPE PATH PIPESTATUS POSIXLY_CORRECT PPID " +
    "PROMPT_COMMAND PROMPT_DIRTRIM PS0 PS1 PS2 PS3 PS4 PWD RANDOM READLINE_ARGUMENT READLINE_LINE READLINE_MARK " +
    "READLINE_POINT SECONDS SHELL SHELLOPTS SHLVL SRANDOM TEXTDOMAIN TEXTDOMAINDIR TIMEFORMAT TMOUT UID"
  ).split(" "),
);
/** Families of variables read by bash, the dynamic loader or bash's function import. */
const VARIABLE_FAMILIES = /^(BASH_|COMP_|READLINE_|HIST|LD_|BASH_FUNC_)/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why assigning `name` is refused, or undefined when it may be assigned. */
export function assignmentProblem(name: string): string | undefined {
  if (!IDENTIFIER.test(name)) return `'${name}' is not a plain variable name`;
  if (BASH_VARIABLES.has(name) || VARIABLE_FAMILIES.test(name))
    return `assigning ${name} is not allowed (bash gives it a meaning)`;
  return undefined;
}

/** Builtins that change the working directory: after them a relative redirection is not relative to the work dir. */
export const CHANGES_DIRECTORY = new Set(["cd", "pushd", "popd"]);

/** True when `name` is a bash builtin (so the allow-list's "program" is code inside bash). */
export function isBuiltin(name: string): boolean {
  return BUILTINS.has(name);
}

/** Why this builtin call is refused, or undefined when it is understood. Only call it for `isBuiltin(name)`. */
export function builtinProblem(command: ShellCommand & { name: string }): string | undefined {
  const { name, args } = command;
  if (DATA_BUILTINS.has(name)) return undefined;
  const reason = REFUSED[name];
  if (reason !== undefined) return `the builtin '${name}' is not allowed: it ${reason}`;
  const check = CHECKED[name];
  if (check === undefined) return `the builtin '${name}' is not supported by the shell policy`;
  const problem = check(args);
  return problem === undefined ? undefined : `'${name}' ${problem}`;
}

type Check = (args: ShellWord[]) => string | undefined;

/** A name argument: written out, an identifier (no subscript), assignable. */
function nameProblem(word: ShellWord | undefined, what: string): string | undefined {
  if (word === undefined) return `needs a ${what}`;
  if (word.literal === undefined)
    return `${what} ${JSON.stringify(word.raw)} must be written out (no expansion or glob)`;
  const problem = assignmentProblem(word.literal);
  return problem === undefined ? undefined : `${what}: ${problem}`;
}

/** Every word written out (options of builtins that assign through names must be visible). */
function allWrittenOut(args: ShellWord[]): string | undefined {
  const dynamic = args.find((word) => word.literal === undefined);
  return dynamic === undefined
    ? undefined
    : `arguments must be written out (no expansion or glob): ${JSON.stringify(dynamic.raw)}`;
}

const ASSIGNMENT_WORD = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/;

/** `export`/`readonly`/`declare`…: plain names or `NAME=value` (the value may hold checked expansions), no options. */
const declaring: Check = (args) => {
  for (const word of args) {
    if (word.literal === "-p" || word.literal === "--") continue;
    if (word.literal?.startsWith("-") || word.literal?.startsWith("+"))
      return `option ${word.literal} is not supported (only -p)`;
    const assignment = ASSIGNMENT_WORD.exec(word.raw);
    const problem = assignment ? assignmentProblem(assignment[1] as string) : nameProblem(word, "variable name");
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/** Options of `read` that take a value (the value is data). */
const READ_VALUE_OPTIONS = new Set(["d", "i", "n", "N", "p", "t", "u"]);
const READ_FLAGS = new Set(["r", "s", "e"]);

const CHECKED: Record<string, Check> = {
  export: declaring,
  readonly: declaring,
  declare: declaring,
  typeset: declaring,
  local: declaring,
  unset: (args) => {
    for (const word of args) {
      if (word.literal === "-v" || word.literal === "-f" || word.literal === "--") continue;
      const problem = nameProblem(word, "variable name");
      if (problem !== undefined) return problem;
    }
    return undefined;
  },
  printf: (args) => {
    const first = args[0];
    if (first === undefined) return undefined;
    if (first.literal === undefined)
      return `first argument ${JSON.stringify(first.raw)} must be written out (it could be '-v NAME')`;
    if (first.literal === "-v") return nameProblem(args[1], "'-v' variable name");
    if (first.literal.startsWith("-v")) return assignmentProblem(first.literal.slice(2));
    return undefined;
  },
  read: (args) => {
    for (let i = 0; i < args.length; i++) {
      const word = args[i] as ShellWord;
      const text = word.literal;
      if (text === undefined)
        return `arguments must be written out (no expansion or glob): ${JSON.stringify(word.raw)}`;
      if (text === "--")
        return args
          .slice(i + 1)
          .map((name) => nameProblem(name, "variable name"))
          .find(Boolean);
      if (!text.startsWith("-") || text === "-")
        return args
          .slice(i)
          .map((name) => nameProblem(name, "variable name"))
          .find(Boolean);
      for (let j = 1; j < text.length; j++) {
        const flag = text[j] as string;
        if (READ_FLAGS.has(flag)) continue;
        if (flag === "a") {
          const problem =
            j + 1 < text.length ? assignmentProblem(text.slice(j + 1)) : nameProblem(args[++i], "'-a' array name");
          if (problem !== undefined) return problem;
          break;
        }
        if (!READ_VALUE_OPTIONS.has(flag)) return `option -${flag} is not supported`;
        if (j + 1 === text.length) {
          // The value is the next word: data, but it must stay one word (a split part would become a name).
          const value = args[++i];
          if (value?.splits)
            return `the value of -${flag} ${JSON.stringify(value.raw)} may split into several words; quote it`;
        }
        break;
      }
    }
    return undefined;
  },
  getopts: (args) => {
    const dynamic = allWrittenOut(args.slice(0, 2));
    return dynamic ?? nameProblem(args[1], "variable name");
  },
  test: (args) => testProblem(args),
};

/**
 * `test`: `-v NAME` and `-R NAME` evaluate a subscript in NAME, so their operand must be a written-out identifier.
 * A word that is not written out may itself turn out to be `-v`, so the word after it must be written out and hold
 * no `[`; a word that may split into several is refused outright.
 */
function testProblem(args: ShellWord[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as ShellWord;
    const next = args[i + 1];
    if (word.splits)
      return `argument ${JSON.stringify(word.raw)} may split into several words (one could be '-v'); quote it`;
    if (word.literal === "-v" || word.literal === "-R") {
      const problem = nameProblem(next, `'${word.literal}' variable name`);
      if (problem !== undefined) return problem;
    } else if (
      word.literal === undefined &&
      next !== undefined &&
      (next.literal === undefined || next.literal.includes("["))
    ) {
      return `argument ${JSON.stringify(word.raw)} could be '-v', so ${JSON.stringify(next.raw)} after it must be written out without '['`;
    }
  }
  return undefined;
}
