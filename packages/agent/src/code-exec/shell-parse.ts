/**
 * A deliberately small recogniser for the bash a model sends to `execute_shell_command`, written to answer one
 * question: which programs would bash start, and where would it redirect? It understands simple commands,
 * pipelines (`|`, `|&`), lists (`;`, `&&`, `||`, newlines), subshells `( … )`, every quoting form (`'…'`, `"…"`,
 * `$'…'`, `$"…"`, backslashes), command substitution (`$( … )` and backticks, nested), process substitution
 * (`<( … )`, `>( … )`), parameter expansion (`$x` and the `${…}` forms that evaluate nothing: see
 * `#parameterExpansion`), assignments, redirections and here-documents (with expansions in unquoted ones). Anything
 * else — shell keywords (`if`, `for`, `{ … }`, `function`…), every arithmetic context (`$(( … ))`, `$[ … ]`,
 * `(( … ))`, subscripts and offsets that are not written-out numbers), indirection `${!x}`, prompt expansion
 * `${x@P}`, array assignments, locale translation `$"…"`, background jobs (`&`), coprocesses — is a syntax error:
 * refusing what it does not model is what keeps the allow-list sound (docs/decisions/0191, 0235).
 */
import { AgentSkillsError } from "@skillport/core";

export interface ShellWord {
  /** The text after quote removal, or undefined when it is not plain text (an expansion, a glob, a tilde or braces). */
  literal: string | undefined;
  /** As written. */
  raw: string;
  /** It may become zero or several words (an unquoted expansion, a glob, braces, `"$@"`, `"${a[@]}"`). */
  splits: boolean;
}

export interface ShellCommand {
  /** The program name after quote removal, or undefined when the word is not plain text (it holds an expansion, a glob, a tilde or braces). */
  name: string | undefined;
  /** The command word as written. */
  raw: string;
  /** The words after the name (redirections left out). */
  args: ShellWord[];
}

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `<>`, `>|`, `&>`, `&>>`, `>&`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  /** The file it opens after quote removal; undefined when not plain text. Empty for fd duplications and here-documents. */
  target: string | undefined;
  /** `>&2`, `2>&1`, `<&-` and here-documents/strings open no file. */
  opensFile: boolean;
}

export interface ShellParse {
  /** Every command bash may start, substitutions included, in source order. */
  commands: ShellCommand[];
  redirects: ShellRedirect[];
  /** Variables assigned before commands (`X=1 cmd`), alone (`X=1`) or by `${X:=…}`/`${X=…}`. */
  assignments: string[];
}

/** A command outside the supported shell subset; `offset` is where (0-based, in characters). */
export class ShellSyntaxError extends AgentSkillsError<"SHELL_SYNTAX"> {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message, { code: "SHELL_SYNTAX" });
    this.offset = offset;
  }
}

export interface ShellParseLimits {
  /** Longest command accepted, in characters. Default 100,000. */
  maxLength?: number;
  /** Deepest nesting of substitutions and subshells. Default 16. */
  maxDepth?: number;
}

const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "function",
  "time",
  "coproc",
  "{",
  "}",
  "[[",
  "]]",
  "!",
]);
const BLANK = new Set([" ", "\t"]);
/** Characters that end an unquoted word. */
const META = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
const REDIRECT = /^(&>>|&>|>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/;
const SPECIAL_PARAMETER = /[@*#?$!\-0-9]/;
/** `name[…]=` or `name[…]+=`: an array element assignment, whose subscript bash evaluates as arithmetic. */
const ELEMENT_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\[.*\]\+?=/s;
/** A subscript or an offset that evaluates nothing: a written-out (possibly negative) number. */
const NUMBER = /^ *-? *[0-9]+ *$/;
/** `${x@…}` transformations that only quote or change case; `P` (prompt expansion) runs `$( … )` in the value. */
const SAFE_TRANSFORMS = new Set(["Q", "E", "A", "K", "k", "a", "U", "u", "L"]);

/** What a `$…` at the cursor was: a literal dollar, an expansion to one word, or one that may give several (`$@`). */
type Dollar = "literal" | "one" | "many";

interface Word extends ShellWord {
  /** A quote or backslash appeared (here-document delimiters: quoted means no expansion in the body). */
  quoted: boolean;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  expand: boolean;
}

/** Parses `source`; throws ShellSyntaxError for anything outside the supported subset. */
export function parseShell(source: string, limits: ShellParseLimits = {}): ShellParse {
  const maxLength = limits.maxLength ?? 100_000;
  if (source.length > maxLength) throw new ShellSyntaxError(`command longer than ${maxLength} characters`, 0);
  const out: ShellParse = { commands: [], redirects: [], assignments: [] };
  new Parser(source, out, 0, limits.maxDepth ?? 16).script();
  return out;
}

class Parser {
  #pos = 0;
  #pending: PendingHeredoc[] = [];
  /** Inside double quotes or a here-document body: a `'` in a `${…}` operand is then an ordinary character. */
  #inDoubleQuotes = false;
  readonly #src: string;
  readonly #out: ShellParse;
  readonly #depth: number;
  readonly #maxDepth: number;

  constructor(src: string, out: ShellParse, depth: number, maxDepth: number) {
    if (depth > maxDepth) throw new ShellSyntaxError(`nested deeper than ${maxDepth} levels`, 0);
    this.#src = src;
    this.#out = out;
    this.#depth = depth;
    this.#maxDepth = maxDepth;
  }

  script(): void {
    this.#list(undefined);
    if (this.#pos < this.#src.length) this.#fail(`unexpected ${JSON.stringify(this.#src[this.#pos])}`);
    if (this.#pending.length > 0)
      this.#fail(`here-document ${JSON.stringify(this.#pending[0]?.delimiter)} is not terminated`);
  }

  /** A list of pipelines up to `stop` (`)` for substitutions and subshells) or the end. */
  #list(stop: ")" | undefined): void {
    let needCommand = false; // after `|`, `&&`, `||` a command must follow (newlines may come first)
    let canSeparate = false; // after a command, `;` or a newline ends it
    for (;;) {
      this.#skipBlanks();
      const c = this.#peek();
      if (c === undefined || c === stop) {
        if (needCommand) this.#fail("a command must follow the operator");
        if (stop !== undefined && this.#pending.length > 0)
          this.#fail("here-documents inside substitutions are not supported");
        return;
      }
      if (c === "\n") {
        this.#pos++;
        this.#readHeredocs();
        canSeparate = false;
        continue;
      }
      if (c === ";") {
        if (!canSeparate || this.#src.startsWith(";;", this.#pos)) this.#fail("';' without a command before it");
        this.#pos++;
        canSeparate = false;
        continue;
      }
      if (canSeparate) this.#fail(`unexpected ${JSON.stringify(c)}`);
      this.#command();
      needCommand = false;
      canSeparate = true;
      this.#skipBlanks();
      const op = this.#operator();
      if (op === "&") this.#fail("background jobs ('&') are not supported; run the command in the foreground");
      if (op !== undefined) {
        needCommand = true;
        canSeparate = false;
      }
    }
  }

  /** Consumes `|`, `|&`, `&&`, `||` or `&` (not `&>`) at the cursor. */
  #operator(): string | undefined {
    for (const op of ["&&", "||", "|&", "|"]) {
      if (this.#src.startsWith(op, this.#pos)) {
        this.#pos += op.length;
        return op;
      }
    }
    if (this.#peek() === "&" && this.#src[this.#pos + 1] !== ">") {
      this.#pos++;
      return "&";
    }
    return undefined;
  }

  /** One simple command or subshell, with its redirections. */
  #command(): void {
    if (this.#peek() === "(") {
      if (this.#src[this.#pos + 1] === "(") this.#fail("arithmetic commands '(( … ))' are not supported");
      this.#pos++;
      this.#nested(() => this.#list(")"));
      this.#expect(")");
      this.#redirectsOnly();
      return;
    }
    let command: ShellCommand | undefined;
    let any = false;
    let assigned = false; // the previous word was `name=` (then `(` opens an array)
    for (;;) {
      this.#skipBlanks();
      const c = this.#peek();
      if (c === undefined || c === "\n" || c === ";" || c === "|" || c === ")") break;
      if (c === "&" && this.#src[this.#pos + 1] !== ">") break;
      if (c === "(" && assigned)
        this.#fail("array assignments 'name=( … )' are not supported (their subscripts are arithmetic)");
      if (c === "(")
        this.#fail(command ? "'(' after a command word (a function definition?) is not supported" : "unexpected '('");
      assigned = false;
      if (this.#redirect()) {
        any = true;
        continue;
      }
      const start = this.#pos;
      const word = this.#word();
      any = true;
      if (command) {
        command.args.push({ literal: word.literal, raw: word.raw, splits: word.splits });
        continue;
      }
      const assignment = ASSIGNMENT.exec(word.raw);
      if (assignment) {
        this.#out.assignments.push(assignment[1] as string);
        assigned = word.raw === assignment[0];
        continue;
      }
      if (ELEMENT_ASSIGNMENT.test(word.raw))
        this.#fail("array element assignments 'name[…]=' are not supported (the subscript is arithmetic)", start);
      if (!word.quoted && RESERVED.has(word.raw))
        this.#fail(`shell keyword '${word.raw}' is not supported; write a script and run it`);
      command = { name: word.literal, raw: word.raw, args: [] };
      this.#out.commands.push(command);
    }
    if (!any) this.#fail("empty command");
  }

  #redirectsOnly(): void {
    for (;;) {
      this.#skipBlanks();
      if (!this.#redirect()) return;
    }
  }

  /** A redirection at the cursor (with an optional fd number); false when there is none. */
  #redirect(): boolean {
    const rest = this.#src.slice(this.#pos, this.#pos + 24);
    if (/^\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/.test(rest)) this.#fail("named file descriptors '{name}>' are not supported");
    const fd = /^\d+(?=[<>])/.exec(rest)?.[0] ?? "";
    const after = rest.slice(fd.length);
    if (/^[<>]\(/.test(after)) return false; // process substitution: a word
    const op = REDIRECT.exec(after)?.[0];
    if (op === undefined) return false;
    if (fd !== "" && op.startsWith("&")) return false;
    this.#pos += fd.length + op.length;
    this.#skipBlanks();
    const c = this.#peek();
    if (c === undefined || META.has(c)) this.#fail(`a file name must follow '${op}'`);
    if (op === "<<" || op === "<<-") {
      const word = this.#word();
      if (word.literal === undefined && !word.quoted) this.#fail("a here-document delimiter must be plain text");
      const delimiter = word.literal ?? unquoteLoosely(word.raw);
      this.#pending.push({ delimiter, stripTabs: op === "<<-", expand: !word.quoted });
      this.#out.redirects.push({ op, target: "", opensFile: false });
      return true;
    }
    const word = this.#word();
    if (op === "<<<") {
      this.#out.redirects.push({ op, target: "", opensFile: false });
      return true;
    }
    if ((op === ">&" || op === "<&") && word.literal !== undefined && /^(\d+|-)$/.test(word.literal)) {
      this.#out.redirects.push({ op, target: "", opensFile: false });
      return true;
    }
    this.#out.redirects.push({ op, target: word.literal, opensFile: true });
    return true;
  }

  /** One word: quotes, escapes and expansions, up to an unquoted metacharacter. */
  #word(): Word {
    const start = this.#pos;
    let literal: string | undefined = "";
    let quoted = false;
    let splits = false;
    const plain = (text: string) => {
      if (literal !== undefined) literal += text;
    };
    const opaque = (many = true) => {
      literal = undefined;
      if (many) splits = true;
    };
    const inQuotes = (text: string | undefined, many: boolean) => {
      if (text === undefined) opaque(many);
      else plain(text);
    };
    for (;;) {
      const c = this.#peek();
      if (c === undefined) break;
      if ((c === "<" || c === ">") && this.#src[this.#pos + 1] === "(" && this.#pos === start) {
        this.#pos += 2;
        this.#nested(() => this.#list(")"));
        this.#expect(")");
        opaque();
        continue;
      }
      if (META.has(c)) break;
      if (c === "\\") {
        const next = this.#src[this.#pos + 1];
        if (next === "\n") {
          this.#pos += 2; // line continuation
          continue;
        }
        quoted = true;
        this.#pos += next === undefined ? 1 : 2;
        plain(next ?? "\\");
        continue;
      }
      if (c === "'") {
        quoted = true;
        const end = this.#src.indexOf("'", this.#pos + 1);
        if (end < 0) this.#fail("unterminated single quote");
        plain(this.#src.slice(this.#pos + 1, end));
        this.#pos = end + 1;
        continue;
      }
      if (c === '"') {
        quoted = true;
        this.#pos++;
        const { text, many } = this.#doubleQuoted();
        inQuotes(text, many);
        continue;
      }
      if (c === "`") {
        this.#backticks();
        opaque();
        continue;
      }
      if (c === "$") {
        const next = this.#src[this.#pos + 1];
        if (next === "'") {
          quoted = true;
          this.#pos += 2;
          inQuotes(this.#ansiC(), false);
          continue;
        }
        if (next === '"') this.#fail('locale translation \'$"…"\' is not supported; use "…"');
        if (this.#dollar() === "literal") plain("$");
        else opaque();
        continue;
      }
      if (c === "#" && this.#pos === start) {
        // A comment only at the start of a word; skipBlanks handles it, so this is unreachable in practice.
        break;
      }
      // Globs, tilde and brace expansion change the word: plain for arguments, never a plain command name.
      if (
        c === "*" ||
        c === "?" ||
        c === "[" ||
        c === "{" ||
        c === "}" ||
        c === "," ||
        (c === "~" && this.#pos === start)
      ) {
        this.#pos++;
        opaque();
        continue;
      }
      this.#pos++;
      plain(c);
    }
    if (this.#pos === start) this.#fail(`unexpected ${JSON.stringify(this.#peek() ?? "end of input")}`);
    return { literal, raw: this.#src.slice(start, this.#pos), quoted, splits };
  }

  /** After an opening `"`: up to the closing one. The text (undefined when it held an expansion); `many` for `"$@"`. */
  #doubleQuoted(): { text: string | undefined; many: boolean } {
    const outer = this.#inDoubleQuotes;
    this.#inDoubleQuotes = true;
    try {
      return this.#doubleQuotedText();
    } finally {
      this.#inDoubleQuotes = outer;
    }
  }

  #doubleQuotedText(): { text: string | undefined; many: boolean } {
    let text: string | undefined = "";
    let many = false;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) this.#fail("unterminated double quote");
      if (c === '"') {
        this.#pos++;
        return { text, many };
      }
      if (c === "\\") {
        const next = this.#src[this.#pos + 1];
        if (next === undefined) this.#fail("unterminated double quote");
        this.#pos += 2;
        if (next === "\n") continue;
        if (text !== undefined) text += '$`"\\'.includes(next as string) ? next : `\\${next}`;
        continue;
      }
      if (c === "`") {
        this.#backticks();
        text = undefined;
        continue;
      }
      if (c === "$") {
        const dollar = this.#dollar();
        if (dollar === "many") many = true;
        if (dollar !== "literal") text = undefined;
        else if (text !== undefined) text += "$";
        continue;
      }
      this.#pos++;
      if (text !== undefined) text += c;
    }
  }

  /** After `$'`: ANSI-C quoted text up to the closing quote (escapes make it opaque, except `\\` and `\'`). */
  #ansiC(): string | undefined {
    let text: string | undefined = "";
    for (;;) {
      const c = this.#peek();
      if (c === undefined) this.#fail("unterminated $'…' quote");
      this.#pos++;
      if (c === "'") return text;
      if (c === "\\") {
        const next = this.#peek();
        if (next === undefined) this.#fail("unterminated $'…' quote");
        this.#pos++;
        if (next === "\\" || next === "'") {
          if (text !== undefined) text += next;
        } else text = undefined;
        continue;
      }
      if (text !== undefined) text += c;
    }
  }

  /** At a `$`: consumes an expansion, or just the `$` when it is a literal dollar. */
  #dollar(): Dollar {
    const next = this.#src[this.#pos + 1];
    if (next === "(") {
      if (this.#src[this.#pos + 2] === "(") this.#fail("arithmetic expansion '$(( … ))' is not supported");
      this.#pos += 2;
      const outer = this.#inDoubleQuotes;
      this.#inDoubleQuotes = false; // a command substitution starts a new quoting context
      this.#nested(() => this.#list(")"));
      this.#inDoubleQuotes = outer;
      this.#expect(")");
      return "one";
    }
    if (next === "[") this.#fail("arithmetic expansion '$[ … ]' is not supported");
    if (next === "{") {
      this.#pos += 2;
      return this.#nested(() => this.#parameterExpansion());
    }
    if (next !== undefined && (/[A-Za-z_]/.test(next) || SPECIAL_PARAMETER.test(next))) {
      this.#pos += 2;
      if (/[A-Za-z_]/.test(next)) while (/[A-Za-z0-9_]/.test(this.#peek() ?? "")) this.#pos++;
      return next === "@" ? "many" : "one";
    }
    this.#pos++;
    return "literal";
  }

  /**
   * After `${`: the forms that evaluate nothing held in a variable, up to the matching `}`. A parameter (`name`, a
   * positional number or a special character), optionally `#` before it (length), a subscript that is a written-out
   * number, `@` or `*`, then at most one operator: `:-` `-` `:=` `=` `:?` `?` `:+` `+` `#` `##` `%` `%%` `/` `//` `/#`
   * `/%` `^` `^^` `,` `,,` with an operand whose substitutions are parsed like any word's, `:offset[:length]` with
   * written-out numbers, or `@Q`-style transformations other than `@P`. Indirection (`${!x}`) is refused; only
   * `${!prefix@}`, `${!prefix*}` and `${!a[@]}` (names, keys) are read. Everything else bash would accept here can
   * evaluate text held in a variable as arithmetic (`a[$(…)]` runs the substitution) or as a prompt.
   */
  #parameterExpansion(): Dollar {
    const at = this.#pos - 2;
    const src = this.#src;
    const shown = () => quoteConstruct(src.slice(at, src.indexOf("}", at) + 1 || undefined));
    const rest = () => src.slice(this.#pos);
    if (src[this.#pos] === "!" && src[this.#pos + 1] !== "}") {
      const names = /^!([A-Za-z_][A-Za-z0-9_]*)(@|\*|\[@\]|\[\*\])\}/.exec(rest());
      if (!names)
        this.#fail(
          `indirect expansion ${shown()} is not supported (it evaluates a subscript the variable may hold)`,
          at,
        );
      this.#pos += names[0].length;
      return names[2]?.includes("@") ? "many" : "one";
    }
    const length = /^#([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(?=[[}])/.exec(rest());
    if (length) this.#pos += length[0].length;
    const param = length ? (length[1] as string) : /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(rest())?.[1];
    if (param === undefined) this.#fail(`${shown()} is not supported: a parameter name must follow '\${'`, at);
    if (!length) this.#pos += param.length;
    let many = param === "@";
    if (src[this.#pos] === "[") {
      const end = src.indexOf("]", this.#pos);
      const subscript = end < 0 ? undefined : src.slice(this.#pos + 1, end);
      if (
        !/^[A-Za-z_]/.test(param) ||
        subscript === undefined ||
        !(subscript === "@" || subscript === "*" || NUMBER.test(subscript))
      ) {
        this.#fail(`subscript in ${shown()} must be a written-out number, @ or * (subscripts are arithmetic)`, at);
      }
      many = subscript === "@";
      this.#pos = end + 1;
    }
    if (length) {
      if (src[this.#pos] !== "}") this.#fail(`${shown()} is not supported: '\${#name}' takes no operator`, at);
      this.#pos++;
      return "one";
    }
    const op = /^(:[-=?+]|[-=?+]|##?|%%?|\/[/#%]?|\^\^?|,,?|:|@|\})/.exec(rest())?.[1];
    if (op === undefined)
      this.#fail(
        `${shown()} is not supported: unknown operator ${JSON.stringify(src[this.#pos] ?? "end of input")}`,
        at,
      );
    this.#pos += op.length;
    if (op === "}") return many ? "many" : "one";
    if (op === "@") {
      const transform = src[this.#pos];
      if (transform === "P")
        this.#fail(`prompt expansion ${shown()} is not supported (it runs commands held in the variable)`, at);
      if (transform === undefined || !SAFE_TRANSFORMS.has(transform) || src[this.#pos + 1] !== "}") {
        this.#fail(`transformation ${shown()} is not supported (allowed: @${[...SAFE_TRANSFORMS].join(" @")})`, at);
      }
      this.#pos += 2;
      return many ? "many" : "one";
    }
    if (op === ":") {
      const end = src.indexOf("}", this.#pos);
      const parts = end < 0 ? [] : src.slice(this.#pos, end).split(":");
      if (parts.length < 1 || parts.length > 2 || !parts.every((part) => NUMBER.test(part))) {
        this.#fail(`offset and length in ${shown()} must be written-out numbers (they are arithmetic)`, at);
      }
      this.#pos = end + 1;
      return many ? "many" : "one";
    }
    if (op.endsWith("=")) {
      if (!/^[A-Za-z_]/.test(param)) this.#fail(`${shown()} is not supported: only a variable can be assigned`, at);
      this.#out.assignments.push(param);
    }
    this.#operand();
    return many ? "many" : "one";
  }

  /** An operator's operand inside `${…}`, up to the closing `}`; its substitutions are parsed as in any word. */
  #operand(): void {
    for (;;) {
      const c = this.#peek();
      if (c === undefined) this.#fail("unterminated ${…}");
      if (c === "}") {
        this.#pos++;
        return;
      }
      if (c === "\\") {
        this.#pos += 2;
        continue;
      }
      if (c === "'" && !this.#inDoubleQuotes) {
        // Quotes only outside double quotes: in "${x:-'$(cmd)'}" bash runs cmd, so the text is scanned.
        const end = this.#src.indexOf("'", this.#pos + 1);
        if (end < 0) this.#fail("unterminated single quote");
        this.#pos = end + 1;
        continue;
      }
      if (c === '"') {
        this.#pos++;
        this.#doubleQuoted();
        continue;
      }
      if (c === "`") {
        this.#backticks();
        continue;
      }
      if (c === "$") {
        if (this.#src[this.#pos + 1] === '"') this.#fail('locale translation \'$"…"\' is not supported; use "…"');
        this.#dollar();
        continue;
      }
      this.#pos++;
    }
  }

  /** At a backtick: the text up to the closing one, unescaped as bash does, parsed as a script of its own. */
  #backticks(): void {
    const start = this.#pos;
    this.#pos++;
    let inner = "";
    for (;;) {
      const c = this.#peek();
      if (c === undefined) {
        this.#pos = start;
        this.#fail("unterminated backquote");
      }
      this.#pos++;
      if (c === "`") break;
      if (c === "\\") {
        const next = this.#peek();
        if (next === "$" || next === "`" || next === "\\") {
          inner += next;
          this.#pos++;
          continue;
        }
      }
      inner += c;
    }
    const out = this.#out;
    this.#nested(() => new Parser(inner, out, this.#depth + 1, this.#maxDepth).script());
  }

  /** Reads the bodies of here-documents pending at a newline; unquoted ones are scanned for substitutions. */
  #readHeredocs(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const doc of pending) {
      const bodyStart = this.#pos;
      let body = "";
      for (;;) {
        if (this.#pos >= this.#src.length)
          this.#fail(`here-document ${JSON.stringify(doc.delimiter)} is not terminated`);
        const end = this.#src.indexOf("\n", this.#pos);
        const line = this.#src.slice(this.#pos, end < 0 ? this.#src.length : end);
        this.#pos = end < 0 ? this.#src.length : end + 1;
        const compared = doc.stripTabs ? line.replace(/^\t+/, "") : line;
        if (compared === doc.delimiter) break;
        body += `${line}\n`;
      }
      if (!doc.expand) continue;
      try {
        this.#nested(() => new HeredocScanner(body, this.#out, this.#depth + 1, this.#maxDepth).scan());
      } catch (error) {
        // The scanner counts from the body's start; report where the problem is in the whole command.
        if (error instanceof ShellSyntaxError) throw new ShellSyntaxError(error.message, bodyStart + error.offset);
        throw error;
      }
    }
  }

  #skipBlanks(): void {
    for (;;) {
      const c = this.#peek();
      if (c !== undefined && BLANK.has(c)) this.#pos++;
      else if (c === "\\" && this.#src[this.#pos + 1] === "\n") this.#pos += 2;
      else if (c === "#") {
        const end = this.#src.indexOf("\n", this.#pos);
        this.#pos = end < 0 ? this.#src.length : end;
      } else return;
    }
  }

  #nested<T>(run: () => T): T {
    if (this.#depth + 1 > this.#maxDepth) this.#fail(`nested deeper than ${this.#maxDepth} levels`);
    return run();
  }

  #expect(c: string): void {
    if (this.#peek() !== c) this.#fail(`expected '${c}'`);
    this.#pos++;
  }

  #peek(): string | undefined {
    return this.#src[this.#pos];
  }

  #fail(message: string, at = this.#pos): never {
    throw new ShellSyntaxError(message, at);
  }

  /** @internal used by HeredocScanner */
  static dollarAt(parser: Parser): Dollar {
    return parser.#dollar();
  }

  /** @internal the parser reads a here-document body, which quotes like double quotes */
  static quotedBody(parser: Parser): void {
    parser.#inDoubleQuotes = true;
  }

  /** @internal */
  static backticksAt(parser: Parser): void {
    parser.#backticks();
  }

  /** @internal */
  static position(parser: Parser, pos?: number): number {
    if (pos !== undefined) parser.#pos = pos;
    return parser.#pos;
  }
}

/** The body of an unquoted here-document: like double-quoted text without the closing quote. */
class HeredocScanner {
  readonly #parser: Parser;
  readonly #body: string;

  constructor(body: string, out: ShellParse, depth: number, maxDepth: number) {
    this.#body = body;
    this.#parser = new Parser(body, out, depth, maxDepth);
    Parser.quotedBody(this.#parser);
  }

  scan(): void {
    const p = this.#parser;
    for (;;) {
      const pos = Parser.position(p);
      const c = this.#body[pos];
      if (c === undefined) return;
      if (c === "\\") Parser.position(p, pos + 2);
      else if (c === "`") Parser.backticksAt(p);
      else if (c === "$") Parser.dollarAt(p);
      else Parser.position(p, pos + 1);
    }
  }
}

/** A construct for a message: quoted, on one line, at most 40 characters. */
function quoteConstruct(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return `'${line.length > 40 ? `${line.slice(0, 39)}…` : line}'`;
}

/** A quoted here-document delimiter's text: quotes and backslashes removed. */
function unquoteLoosely(raw: string): string {
  return raw.replace(/\\(.)/g, "$1").replace(/["']/g, "");
}
