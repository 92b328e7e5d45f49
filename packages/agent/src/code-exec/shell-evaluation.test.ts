// Issue 19 hole 4: bash evaluates text held in variables at many points (arithmetic in subscripts, offsets and
// `(( ))`, prompt expansion, indirection, builtins that assign through a name or run a string). Each point is a row
// below; the rows bash can be shown to exploit are run in real bash with a variable holding `$(touch <marker>)`,
// proving bash runs the held command, and the policy must refuse them even when every command name is allowed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { checkShellCommand } from "./shell-policy.js";

const root = mkdtempSync(path.join(os.tmpdir(), "skillport-shell-eval-"));
const work = path.join(root, "work");
mkdirSync(work);
const marker = path.join(root, "pwned");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Variables preset for bash: each holds a payload that runs `touch <marker>` if bash evaluates it. */
const PAYLOADS = {
  X: `a[$(/usr/bin/touch ${marker})]`, // arithmetic: a subscript with a substitution
  C: `$(/usr/bin/touch ${marker})`, // a substitution (prompt expansion, eval)
  V: `-v a[$(/usr/bin/touch\${IFS}${marker})]`, // splits into `-v` and a subscripted name
  O: "-v",
};

/** Runs `command` in bash with the payloads preset and nothing on PATH; true when the marker appeared. */
function bashRunsPayload(command: string): boolean {
  rmSync(marker, { force: true });
  spawnSync("/bin/bash", ["-c", command], {
    cwd: work,
    env: { PATH: path.join(root, "empty"), ...PAYLOADS },
    stdio: "ignore",
    timeout: 5000,
  });
  return existsSync(marker);
}

const TOUCH = `/usr/bin/touch ${marker}`;
const ARRAY = "read -a a <<< 1; "; // makes `a` an indexed array without array syntax

/** [evaluation point, command, does real bash run the payload (proved below), expected refusal]. */
const POINTS: [string, string, boolean, RegExp][] = [
  ["prompt expansion @P", "echo ${C@P}", true, /prompt expansion '\$\{C@P\}'/],
  ["prompt expansion @P of an arithmetic payload", "echo ${X@P}", true, /prompt expansion/],
  ["indirection ${!x}", "echo ${!X}", true, /indirect expansion '\$\{!X\}'/],
  ["indirection with a subscript", "echo ${!a[X]}", true, /indirect expansion/],
  ["subscript naming a variable", "echo ${a[X]}", true, /subscript in '\$\{a\[X\]\}'/],
  ["subscript holding an expansion", "echo ${a[$X]}", true, /subscript in/],
  ["subscript in double quotes", 'echo "${a[X]}"', true, /subscript in/],
  ["length of a subscripted element", `${ARRAY}echo \${#a[X]}`, true, /subscript in/],
  ["subscript in an unquoted here-document", "cat <<E\n${a[X]}\nE", true, /subscript in/],
  ["substring offset", "Y=1; echo ${Y:X}", true, /offset and length in '\$\{Y:X\}'/],
  ["substring length", "echo ${X:0:X}", true, /offset and length/],
  ["negative offset with a length", "Y=1; echo ${Y: -1:X}", true, /offset and length/],
  ["positional slice", "echo ${@:X}", true, /offset and length/],
  ["arithmetic expansion $(( ))", "echo $((X))", true, /arithmetic expansion '\$\(\( … \)\)'/],
  ["old arithmetic expansion $[ ]", "echo $[X]", true, /arithmetic expansion '\$\[ … \]'/],
  ["arithmetic command (( ))", "((X))", true, /arithmetic commands/],
  ["arithmetic for", "for ((i=X;0;)); do :; done", true, /keyword 'for'/],
  ["[[ -eq ]] comparison", "[[ X -eq 1 ]]", true, /keyword '\[\['/],
  ["let", "let X", true, /builtin 'let'/],
  ["array element assignment", "a[X]=1", true, /array element assignments/],
  ["array assignment with a subscript", "a=([X]=1)", true, /array assignments/],
  ["unset of an element", `${ARRAY}unset a[X]`, true, /'unset' variable name/],
  ["unset through a name held in a variable", `${ARRAY}unset "$X"`, true, /'unset' variable name/],
  ["unset -v through a name held in a variable", `${ARRAY}unset -v "$X"`, true, /'unset' variable name/],
  ["declare -i", "declare -i Y=$X", true, /'declare' option -i/],
  ["declare -n (nameref)", "declare -n Y=$X; echo $Y", true, /'declare' option -n/],
  ["typeset -n", "typeset -n Y=$X; echo $Y", true, /'typeset' option -n/],
  ["local -n", "local -n Y=$X", false, /'local' option -n/],
  ["readonly -a", "readonly -a Y", false, /'readonly' option -a/],
  ["export -n", "export -n Y", false, /'export' option -n/],
  ["declare through a name held in a variable", `${ARRAY}declare "$X"=1`, true, /'declare' variable name/],
  ["export through a name held in a variable", 'export "$X"', false, /'export' variable name/],
  ["printf -v through a held name", 'printf -v "$X" x', true, /'printf' '-v' variable name/],
  ["printf -v into an integer variable", 'printf -vRANDOM %s "$X"', true, /'printf' assigning RANDOM/],
  ["printf with an option that may be -v", "printf $V x", false, /'printf' first argument/],
  ["read into a held name", 'read "$X" <<< 1', true, /'read' arguments must be written out/],
  ["read -a into a held name", `read -a "$X" <<< 1`, false, /'read' '-a' array name "\\"\$X\\"" must be written out/],
  [
    "read with an option value that splits into a name",
    "read -p $V <<< 1",
    true,
    /'read' the value of -p "\$V" may split/,
  ],
  ["read into an integer variable", 'read OPTIND <<< "$X"', true, /'read' variable name: assigning OPTIND/],
  ["getopts into an integer variable", 'getopts a: OPTIND -a "$X"', false, /'getopts' variable name: assigning OPTIND/],
  ["test -v with a held name", `${ARRAY}test -v "$X"`, true, /'test' '-v' variable name/],
  [
    "test with an operator held in a variable",
    `${ARRAY}test "$O" "$X"`,
    true,
    /'test' argument "\\"\$O\\"" could be '-v'/,
  ],
  ["test with a word that splits into -v NAME", `${ARRAY}test $V`, true, /'test' argument "\$V" may split/],
  ["test -R with a held name", 'test -R "$X"', false, /'test' '-R' variable name/],
  ["[ -v ] (the name '[' is never plain)", `${ARRAY}[ -v "$X" ]`, true, /not a plain program name/],
  ["assignment to RANDOM (integer)", "RANDOM=$X", true, /assigning RANDOM/],
  ["assignment to OPTIND (integer)", "OPTIND=$X", true, /assigning OPTIND/],
  ["assignment to SRANDOM (integer)", "SRANDOM=$X", true, /assigning SRANDOM/],
  ["assignment to HISTCMD (integer)", "HISTCMD=$X", true, /assigning HISTCMD/],
  ["export of an integer variable", "export RANDOM=$X", true, /'export' assigning RANDOM/],
  ["${x:=…} into an integer variable", "unset RANDOM; echo ${SECONDS:=$X}", false, /assigning SECONDS/],
  ["PS4 with xtrace", "PS4=$C; set -x; :", true, /assigning PS4/],
  ["PROMPT_COMMAND", "PROMPT_COMMAND=$C", false, /assigning PROMPT_COMMAND/],
  ["PS1", "PS1=$C", false, /assigning PS1/],
  ["BASH_ENV", "BASH_ENV=$C", false, /assigning BASH_ENV/],
  ["ENV", "ENV=$C", false, /assigning ENV/],
  ["eval", 'eval "$C"', true, /builtin 'eval'/],
  ["source", 'source /dev/stdin <<< "$C"', true, /builtin 'source'/],
  [". (source)", '. /dev/stdin <<< "$C"', true, /builtin '\.'/],
  ["trap", 'trap "$C" EXIT', true, /builtin 'trap'/],
  ["builtin", 'builtin eval "$C"', true, /builtin 'builtin'/],
  ["command", `command ${TOUCH}`, true, /builtin 'command'/],
  ["exec", `exec ${TOUCH}`, true, /builtin 'exec'/],
  [
    "hash -p maps an allowed name to another program",
    `hash -p /usr/bin/touch python3; python3 ${marker}`,
    true,
    /builtin 'hash'/,
  ],
  ["jobs -x", `jobs -x ${TOUCH}`, true, /builtin 'jobs'/],
  ["compgen -C", `compgen -C "${TOUCH}" x`, true, /builtin 'compgen'/],
  ["complete -C", `complete -C "${TOUCH}" x`, false, /builtin 'complete'/],
  ["mapfile -C", `mapfile -t -c 1 -C "${TOUCH} #" a <<< x`, true, /builtin 'mapfile'/],
  ["readarray", 'readarray "$X" <<< 1', false, /builtin 'readarray'/],
  ["enable -f", "enable -f ./x.so x", false, /builtin 'enable'/],
  ["shopt", "shopt -s expand_aliases", false, /builtin 'shopt'/],
  ["fc", "fc -e x", false, /builtin 'fc'/],
  ["bind -x", `bind -x '"x":${TOUCH}'`, false, /builtin 'bind'/],
  ["wait -p (assigns through a name)", 'wait -p "$X"', false, /builtin 'wait' is not supported/],
  ["alias", "alias x=y", false, /builtin 'alias' is not supported/],
  ['locale translation $"…"', 'echo $"x"', false, /locale translation/],
  ["unknown @ transformation", "echo ${X@Z}", false, /transformation '\$\{X@Z\}'/],
];

const bash = spawnSync("/bin/bash", ["-c", "true"]).status === 0 && existsSync("/usr/bin/touch");

/** Every command name in a row is allowed, so only the syntax and builtin rules can refuse it. */
function refusal(command: string): string[] {
  const verdict = checkShellCommand(command, {
    allowedCommands: ["echo", "cat", "python3", ...BUILTIN_NAMES],
    workDir: work,
  });
  return verdict.ok ? [] : verdict.problems;
}
const BUILTIN_NAMES = [
  "pushd",
  "popd",
  "dirs",
  "umask",
  "help",
  "times",
  "kill",
  "ulimit",
  "break",
  "exit",
  "let",
  "unset",
  "declare",
  "typeset",
  "local",
  "readonly",
  "export",
  "printf",
  "read",
  "getopts",
  "test",
  "[",
  "eval",
  "source",
  ".",
  "trap",
  "builtin",
  "command",
  "exec",
  "hash",
  "jobs",
  "compgen",
  "complete",
  "mapfile",
  "readarray",
  "enable",
  "shopt",
  "fc",
  "bind",
  "wait",
  "alias",
  "set",
  ":",
  "cd",
  "shift",
  "type",
];

describe("every bash evaluation point is refused, naming the construct in one line", () => {
  it.each(POINTS)("%s: %j", (_point, command, _runs, message) => {
    const problems = refusal(command);
    expect(problems.join("; ")).toMatch(message);
    for (const problem of problems) expect(problem).not.toContain("\n");
  });
});

describe('with allowedCommands "any" the syntax and builtin rules still apply', () => {
  it.each([
    ['eval "$C"', /builtin 'eval'/],
    ["echo ${a[X]}", /subscript in/],
    ["hash -p /bin/rm ls; ls x", /builtin 'hash'/],
    ["RANDOM=$X", /assigning RANDOM/],
  ])("%j", (command, message) => {
    const verdict = checkShellCommand(command, { allowedCommands: "any", workDir: work });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.problems.join("; ")).toMatch(message);
  });

  it("while plain programs and data builtins pass", () => {
    expect(
      checkShellCommand('rm -f x; echo "${X:-none}" | tr a b; cd sub && ls /', {
        allowedCommands: "any",
        workDir: work,
      }).ok,
    ).toBe(true);
  });
});

describe.skipIf(!bash)("differential: real bash runs the held command, the policy refuses it", () => {
  it.each(POINTS.filter(([, , runs]) => runs))("%s: %j", (_point, command) => {
    expect(bashRunsPayload(command), "bash did not run the payload: the row proves nothing").toBe(true);
    expect(refusal(command)).not.toEqual([]);
  });

  it("allows the forms that evaluate nothing, and bash runs no payload through them", () => {
    const accepted = [
      'echo "$X" ${X} ${#X} ${X:-$C} ${X#*[} ${X%%]*} ${X/a/b} ${X//[/} ${X^^} ${X,,} ${X:0:3} ${X: -2} "${X@Q}" ${X@U}',
      `${ARRAY}echo \${a[0]} "\${a[@]}" \${a[*]} \${#a[@]} \${a[-1]} \${a[@]:0:1} \${!a[@]} \${!X*} \${!PA@}`,
      'Y=$X; Z=$C; export W="$X" Y; unset Z; printf -v Q %s "$X"; printf %d "$X"; echo "$Q $Y"',
      'read -r L <<< "$X"; read -ra A <<< "$C"; echo "$L"; getopts a: Y -a "$X"; echo $OPTARG',
      'test -n "$X"; test "$X" = "$C"; test -f "$X"; test "$X" -eq 1; test -v Y; : "$X"; shift "$X"',
      `cat <<E\n$X \${X:-$C} \${#X}\nE`,
      // the builtins whose arguments are only data, each given the payload where it takes a number or a name
      'pushd . >/dev/null; dirs +"$X"; popd -"$X"; umask -S "$X"; type -t "$X"; help "$X"; times; kill -l "$X"; ulimit -t "$X"',
      'printf "%*d %.*s %(%s)T" "$X" 1 "$X" x "$X"; read -t "$X" -n "$X" -d "$X" -p "$X" Y <<< 1; cd "$X"; break "$X"; exit "$X"',
    ];
    for (const command of accepted) {
      expect(refusal(command), command).toEqual([]);
      expect(bashRunsPayload(command), command).toBe(false);
    }
  });

  // Commands built from builtins and expansions around the payload variables: whatever the policy accepts must not
  // run the payload in real bash.
  const arg = fc.constantFrom(
    '"$X"',
    "$X",
    "${X}",
    "$V",
    '"$V"',
    '"$O"',
    "$O",
    '"$C"',
    "-v",
    "-R",
    "Y",
    "a[1]",
    "'a[1]'",
    "${a[0]}",
    "${a[X]}",
    "${X:0:1}",
    "${X:X}",
    "${X@Q}",
    "${C@P}",
    "${!X}",
    "${!a[@]}",
    "${X:-$C}",
    "${Y:=$X}",
    "Y=$X",
    "RANDOM=$X",
    "-vY",
    "-vRANDOM",
    "-a",
    "-r",
    "%s",
    "%d",
    "OPTIND",
    "$((X))",
    "-i",
    "-n",
    "--",
    "1",
    '"${a[@]}"',
    "*",
  );
  const simple = fc
    .tuple(
      fc.constantFrom(
        "echo",
        "printf",
        "test",
        "read",
        "export",
        "declare",
        "readonly",
        "unset",
        "getopts",
        "cd",
        "shift",
        "type",
        ":",
        "Y=$X",
        "OPTIND=$X",
        "let",
      ),
      fc.array(arg, { maxLength: 4 }),
      fc.constantFrom("", ' <<< "$X"', " <<< 1"),
    )
    .map(([name, args, input]) => `${[name, ...args].join(" ")}${input}`);
  it("never lets an accepted command run a payload (fast-check, real bash)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(simple, { minLength: 1, maxLength: 3 }), (commands) => {
        const command = ARRAY + commands.join("; ");
        if (refusal(command).length > 0) return;
        accepted++;
        expect(bashRunsPayload(command), `${JSON.stringify(command)} was accepted and ran the payload`).toBe(false);
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(40);
  });
});
