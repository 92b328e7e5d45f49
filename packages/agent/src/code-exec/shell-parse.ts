/**
 * A deliberately small recogniser for the bash a model sends to `execute_shell_command`, written to answer one
 * question: which programs would bash start, and where would it redirect? It understands simple commands,
 * pipelines (`|`, `|&`), lists (`;`, `&&`, `||`, newlines), subshells `( … )`, every quoting form (`'…'`, `"…"`,
 * `$'…'`, `$"…"`, backslashes), command substitution (`$( … )` and backticks, nested), process substitution
 * (`<( … )`, `>( … )`), parameter expansion (`$x`, `${…}`, whose words may hold substitutions), assignments,
 * redirections and here-documents (with expansions in unquoted ones). Anything else — shell keywords (`if`, `for`,
 * `{ … }`, `function`…), arithmetic (`$(( … ))`, `(( … ))`), background jobs (`&`), arrays, coprocesses — is a
 * syntax error: refusing what it does not model is what keeps the allow-list sound (docs/decisions/0191).
 */
import { AgentSkillsError } from "@skillport/core";

export interface ShellCommand {
  /** The program name after quote removal, or undefined when the word is not plain text (it holds an expansion, a glob, a tilde or braces). */
  name: string | undefined;
  /** The command word as written. */
  raw: string;
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
  /** Variables assigned before commands (`X=1 cmd`). */
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

const RESERVED = new Set(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "function", "time", "coproc", "{", "}", "[[", "]]", "!"]);
const BLANK = new Set([" ", "\t"]);
/** Characters that end an unquoted word. */
const META = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
const REDIRECT = /^(&>>|&>|>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/;
const SPECIAL_PARAMETER = /[@*#?$!\-0-9]/;

interface Word {
  /** Text after quote removal, or undefined when any part is not plain text. */
  literal: string | undefined;
  raw: string;
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
    if (this.#pending.length > 0) this.#fail(`here-document ${JSON.stringify(this.#pending[0]?.delimiter)} is not terminated`);
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
        if (stop !== undefined && this.#pending.length > 0) this.#fail("here-documents inside substitutions are not supported");
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
    let named = false;
    let any = false;
    for (;;) {
      this.#skipBlanks();
      const c = this.#peek();
      if (c === undefined || c === "\n" || c === ";" || c === "|" || c === ")") break;
      if (c === "&" && this.#src[this.#pos + 1] !== ">") break;
      if (c === "(") this.#fail(named ? "'(' after a command word (a function definition?) is not supported" : "unexpected '('");
      if (this.#redirect()) {
        any = true;
        continue;
      }
      const word = this.#word();
      any = true;
      if (!named) {
        const assignment = ASSIGNMENT.exec(word.raw);
        if (assignment) {
          this.#out.assignments.push(assignment[1] as string);
          continue;
        }
        if (!word.quoted && RESERVED.has(word.raw)) this.#fail(`shell keyword '${word.raw}' is not supported; write a script and run it`);
        this.#out.commands.push({ name: word.literal, raw: word.raw });
        named = true;
      }
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
    const plain = (text: string) => {
      if (literal !== undefined) literal += text;
    };
    const opaque = () => {
      literal = undefined;
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
        const text = this.#doubleQuoted();
        if (text === undefined) opaque();
        else plain(text);
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
          const text = this.#ansiC();
          if (text === undefined) opaque();
          else plain(text);
          continue;
        }
        if (next === '"') {
          quoted = true;
          this.#pos += 2;
          const text = this.#doubleQuoted();
          if (text === undefined) opaque();
          else plain(text);
          continue;
        }
        if (this.#dollar()) opaque();
        else plain("$");
        continue;
      }
      if (c === "#" && this.#pos === start) {
        // A comment only at the start of a word; skipBlanks handles it, so this is unreachable in practice.
        break;
      }
      // Globs, tilde and brace expansion change the word: plain for arguments, never a plain command name.
      if (c === "*" || c === "?" || c === "[" || c === "{" || c === "}" || c === "," || (c === "~" && this.#pos === start)) {
        this.#pos++;
        if (literal !== undefined) literal = undefined;
        continue;
      }
      this.#pos++;
      plain(c);
    }
    if (this.#pos === start) this.#fail(`unexpected ${JSON.stringify(this.#peek() ?? "end of input")}`);
    return { literal, raw: this.#src.slice(start, this.#pos), quoted };
  }

  /** After an opening `"`: up to the closing one. Returns the text, or undefined when it held an expansion. */
  #doubleQuoted(): string | undefined {
    let text: string | undefined = "";
    for (;;) {
      const c = this.#peek();
      if (c === undefined) this.#fail("unterminated double quote");
      if (c === '"') {
        this.#pos++;
        return text;
      }
      if (c === "\\") {
        const next = this.#src[this.#pos + 1];
        if (next === undefined) this.#fail("unterminated double quote");
        this.#pos += 2;
        if (next === "\n") continue;
        if (text !== undefined) text += "$`\"\\".includes(next as string) ? next : `\\${next}`;
        continue;
      }
      if (c === "`") {
        this.#backticks();
        text = undefined;
        continue;
      }
      if (c === "$") {
        if (this.#dollar()) text = undefined;
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

  /**
   * At a `$`: consumes an expansion and returns true, or consumes just the `$` (a literal dollar) and returns false.
   */
  #dollar(): boolean {
    const next = this.#src[this.#pos + 1];
    if (next === "(") {
      if (this.#src[this.#pos + 2] === "(") this.#fail("arithmetic expansion '$(( … ))' is not supported");
      this.#pos += 2;
      this.#nested(() => this.#list(")"));
      this.#expect(")");
      return true;
    }
    if (next === "{") {
      this.#pos += 2;
      this.#braceExpansion();
      return true;
    }
    if (next !== undefined && (/[A-Za-z_]/.test(next) || SPECIAL_PARAMETER.test(next))) {
      this.#pos += 2;
      if (/[A-Za-z_]/.test(next)) while (/[A-Za-z0-9_]/.test(this.#peek() ?? "")) this.#pos++;
      return true;
    }
    this.#pos++;
    return false;
  }

  /** After `${`: up to the matching `}`, parsing every substitution inside its words. */
  #braceExpansion(): void {
    this.#nested(() => {
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
        if (c === "'") {
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
          this.#dollar();
          continue;
        }
        this.#pos++;
      }
    });
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
      let body = "";
      for (;;) {
        if (this.#pos >= this.#src.length) this.#fail(`here-document ${JSON.stringify(doc.delimiter)} is not terminated`);
        const end = this.#src.indexOf("\n", this.#pos);
        const line = this.#src.slice(this.#pos, end < 0 ? this.#src.length : end);
        this.#pos = end < 0 ? this.#src.length : end + 1;
        const compared = doc.stripTabs ? line.replace(/^\t+/, "") : line;
        if (compared === doc.delimiter) break;
        body += `${line}\n`;
      }
      if (doc.expand) this.#nested(() => new HeredocScanner(body, this.#out, this.#depth + 1, this.#maxDepth).scan());
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

  #nested(run: () => void): void {
    if (this.#depth + 1 > this.#maxDepth) this.#fail(`nested deeper than ${this.#maxDepth} levels`);
    run();
  }

  #expect(c: string): void {
    if (this.#peek() !== c) this.#fail(`expected '${c}'`);
    this.#pos++;
  }

  #peek(): string | undefined {
    return this.#src[this.#pos];
  }

  #fail(message: string): never {
    throw new ShellSyntaxError(message, this.#pos);
  }

  /** @internal used by HeredocScanner */
  static dollarAt(parser: Parser): boolean {
    return parser.#dollar();
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

/** A quoted here-document delimiter's text: quotes and backslashes removed. */
function unquoteLoosely(raw: string): string {
  return raw.replace(/\\(.)/g, "$1").replace(/["']/g, "");
}
