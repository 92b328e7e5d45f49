import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AgentSkillsError,
  InvalidPathError,
  LimitExceededError,
  ResourceNotFoundError,
  SkillNotFoundError,
  SkillValidationError,
  parseFrontmatter,
  parseSkillMd,
} from "@skillport/core";
import { LocalFileSystemSkillProvider } from "./provider.js";
import { ResourceTooLargeError, SkillFileTooLargeError, SkillsRootError } from "./errors.js";
import { makeTempDir, removeDir, skillMd, writeTree } from "@skillport/testing";

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeDir(root);
});

const bytes = (...values: number[]) => new Uint8Array(values);

/** Bytes this process has read so far (Linux `rchar`), or NaN where /proc is not available. */
function bytesReadByProcess(): number {
  try {
    const match = /^rchar:\s*(\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function hasBinary(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
      throw new Error(`${name} is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set)`);
    console.log(`skipping: ${name} is not installed`);
    return false;
  }
}

describe("construction", () => {
  it("rejects a missing root, a file root and bad limits", async () => {
    await writeFile(path.join(root, "file"), "x");
    expect(() => new LocalFileSystemSkillProvider(path.join(root, "nope"))).toThrow(SkillsRootError);
    expect(() => new LocalFileSystemSkillProvider(path.join(root, "file"))).toThrow(SkillsRootError);
    expect(() => new LocalFileSystemSkillProvider(root, { maxFileBytes: -1 })).toThrow(RangeError);
    expect(() => new LocalFileSystemSkillProvider(root, { maxFileBytes: Number.NaN })).toThrow(RangeError);
    expect(() => new LocalFileSystemSkillProvider(root, { headChunkBytes: 0 })).toThrow(RangeError);
    const message = (() => {
      try {
        new LocalFileSystemSkillProvider(path.join(root, "nope"));
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).not.toContain(root);
  });

  it("names itself after the root unless told otherwise", () => {
    expect(new LocalFileSystemSkillProvider(root).name).toBe(`fs:${path.basename(root)}`);
    expect(new LocalFileSystemSkillProvider(root, { name: "mine" }).name).toBe("mine");
  });
});

describe("discover", () => {
  it("lists exactly the immediate subdirectories holding a regular SKILL.md", async () => {
    const outside = await makeTempDir();
    try {
      await writeTree(outside, { "escaped/SKILL.md": skillMd("escaped") });
      await writeTree(root, {
        "beta/SKILL.md": skillMd("beta"),
        "alpha/SKILL.md": skillMd("alpha"),
        "lower/skill.md": skillMd("lower"), // accepted when SKILL.md is absent
        ".hidden/SKILL.md": skillMd("hidden"),
        "loose.md": skillMd("loose"),
        "no-skill-md/README.md": "hi",
        "dir-named-skill-md/SKILL.md/x": "not a file",
        "dangling/SKILL.md": { link: "../nowhere.md" },
        "linked-md/SKILL.md": { link: "../alpha/SKILL.md" },
        alias: { link: "alpha" }, // a link that stays inside the root
        escape: { link: path.join(outside, "escaped") },
        loop: { link: "." },
        "dangling-dir": { link: "no-such-dir" },
        "nested/group/SKILL.md": skillMd("group"), // not immediate
      });
      const provider = new LocalFileSystemSkillProvider(root);
      expect(await provider.discover()).toEqual(["alias", "alpha", "beta", "lower"]);
      for (const id of [
        "escape",
        "loop",
        "dangling-dir",
        "dangling",
        "linked-md",
        "dir-named-skill-md",
        ".hidden",
        "loose.md",
        "no-skill-md",
      ]) {
        await expect(provider.getMetadata(id), id).rejects.toBeInstanceOf(SkillNotFoundError);
      }
      expect(await provider.getLocation("alias")).toBe(path.join(provider.root, "alpha", "SKILL.md"));
      expect(await provider.getLocation("lower")).toBe(path.join(provider.root, "lower", "skill.md"));
    } finally {
      await removeDir(outside);
    }
  });

  it("returns [] for an empty root and reflects later changes", async () => {
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.discover()).toEqual([]);
    await writeTree(root, { "new/SKILL.md": skillMd("new") });
    expect(await provider.discover()).toEqual(["new"]);
  });
});

describe("metadata and body", () => {
  it("parses frontmatter only, returns fresh objects, and splits body at the closing line", async () => {
    const text =
      "\ufeff---\r\nname: crlf\r\ndescription: 'has --- inside'\r\nmetadata:\r\n  a: b\r\n---\r\nBody line\r\n---\r\nafter rule\r\n";
    await writeTree(root, { "crlf/SKILL.md": text });
    const provider = new LocalFileSystemSkillProvider(root);
    const first = await provider.getMetadata("crlf");
    expect(first).toEqual({ name: "crlf", description: "has --- inside", metadata: { a: "b" } });
    first.name = "changed";
    (first.metadata as Record<string, string>).a = "changed";
    expect(await provider.getMetadata("crlf")).toEqual({
      name: "crlf",
      description: "has --- inside",
      metadata: { a: "b" },
    });
    expect(await provider.getBody("crlf")).toBe("Body line\r\n---\r\nafter rule\r\n");
  });

  it("reads metadata from the head only: a big SKILL.md with a non-UTF-8 body still has metadata", async () => {
    const head = Buffer.from(skillMd("big", "Big one.", ""));
    const body = Buffer.alloc(512 * 1024, 0xff); // invalid UTF-8 everywhere after the frontmatter
    await writeTree(root, { "big/SKILL.md": Buffer.concat([head, body]) });
    const provider = new LocalFileSystemSkillProvider(root, { headChunkBytes: 64 });
    expect(await provider.getMetadata("big")).toEqual({ name: "big", description: "Big one." });
    const error = await provider.getBody("big").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillValidationError);
    expect((error as SkillValidationError).diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["encoding-invalid", "big/SKILL.md"],
    ]);
  });

  it("getMetadata never reads a 5 MB body: bytes read stay far below it, while getBody reads it all", async () => {
    const head = Buffer.from(skillMd("huge-body", "Huge body.", ""));
    // Invalid UTF-8 right after the frontmatter: decoding any of it would fail the call, not just cost time.
    await writeTree(root, { "huge-body/SKILL.md": Buffer.concat([head, Buffer.alloc(5 * 1024 * 1024, 0xff)]) });
    const provider = new LocalFileSystemSkillProvider(root); // default options: 8 KiB first chunk
    const before = bytesReadByProcess();
    expect(await provider.getMetadata("huge-body")).toEqual({ name: "huge-body", description: "Huge body." });
    const metadataBytes = bytesReadByProcess() - before;
    const error = await provider.getBody("huge-body").catch((e: unknown) => e);
    const bodyBytes = bytesReadByProcess() - before - metadataBytes;
    expect(error).toBeInstanceOf(SkillValidationError);
    if (Number.isNaN(before)) return; // no /proc (not Linux): the invalid-UTF-8 body above still proves it was not decoded
    expect(bodyBytes).toBeGreaterThan(5 * 1024 * 1024); // the counter works: the whole file is read when asked for
    expect(metadataBytes).toBeLessThan(256 * 1024);
  });

  it("stops reading a frontmatter that is already over maxFrontmatterBytes: a 10 MB one costs a few hundred KB", async () => {
    await writeTree(root, {
      "fat/SKILL.md": `---\nname: fat\ndescription: ${"x".repeat(10 * 1024 * 1024)}\n---\nbody\n`,
    });
    const provider = new LocalFileSystemSkillProvider(root, { maxFileBytes: 20 * 1024 * 1024 });
    const before = bytesReadByProcess();
    const error = await provider.getMetadata("fat").catch((e: unknown) => e);
    const read = bytesReadByProcess() - before;
    expect(error).toBeInstanceOf(SkillValidationError);
    expect((error as SkillValidationError).diagnostics).toEqual([
      {
        code: "frontmatter-too-large",
        severity: "error",
        message: "the frontmatter is larger than the limit of 262144 bytes",
        file: "fat/SKILL.md",
        line: 2,
        column: 1,
      },
    ]);
    if (!Number.isNaN(before)) expect(read).toBeLessThan(1024 * 1024);
    // The limit is the parser's, so raising it lets the same file through.
    const roomy = new LocalFileSystemSkillProvider(root, {
      maxFileBytes: 20 * 1024 * 1024,
      parseLimits: { maxFrontmatterBytes: 11 * 1024 * 1024 },
    });
    expect(((await roomy.getMetadata("fat")).description as string).length).toBe(10 * 1024 * 1024);
  });

  it("property: the head reader and the whole-file parser agree on frontmatter-too-large, for any chunk size", async () => {
    const sized = fc.record({
      yamlLines: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 6 }),
      limit: fc.integer({ min: 8, max: 120 }),
      chunk: fc.integer({ min: 1, max: 32 }),
      crlf: fc.boolean(),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sized, async ({ yamlLines, limit, chunk, crlf }) => {
        const nl = crlf ? "\r\n" : "\n";
        const lines = ["name: s", "description: d", ...yamlLines.map((n, i) => `k${i}: ${"v".repeat(n)}`)];
        const text = `---${nl}${lines.join(nl)}${nl}---${nl}body${nl}`;
        const id = `s${run++}`;
        await writeTree(root, { [`${id}/SKILL.md`]: text });
        const provider = new LocalFileSystemSkillProvider(root, {
          headChunkBytes: chunk,
          parseLimits: { maxFrontmatterBytes: limit },
        });
        const expected = parseFrontmatter(text, { limits: { maxFrontmatterBytes: limit } });
        const got = await provider.getMetadata(id).catch((e: unknown) => e);
        if (expected.frontmatter !== undefined) expect(got).toEqual(expected.frontmatter);
        else
          expect((got as SkillValidationError).diagnostics.map((d) => d.code)).toEqual(
            expected.diagnostics.map((d) => d.code),
          );
      }),
      { numRuns: 150 },
    );
  });

  it("reads on past the first chunk while the frontmatter is open, across split UTF-8 characters", async () => {
    const description = "Ünïcödé ✓ ".repeat(2000); // about 30 KB of multi-byte text
    await writeTree(root, { "long/SKILL.md": skillMd("long", JSON.stringify(description), "\nbody\n") });
    for (const headChunkBytes of [1, 7, 64, 8192]) {
      const provider = new LocalFileSystemSkillProvider(root, { headChunkBytes });
      expect(await provider.getMetadata("long"), String(headChunkBytes)).toEqual({ name: "long", description });
      expect(await provider.getBody("long")).toBe("\nbody\n");
    }
  });

  it("property: reading only the head gives what parsing the whole file gives, for any chunk size", async () => {
    const line = fc.constantFrom(
      "---",
      "--- ",
      "---\t",
      "----",
      " ---",
      "-- -",
      "name: p",
      "description: d",
      "a: 1",
      "",
      "é: ✓ ü",
      "k: 'a --- b'",
      "# h",
      "x: [1",
    );
    const doc = fc.record({
      bom: fc.boolean(),
      crlf: fc.boolean(),
      lines: fc.array(line, { maxLength: 12 }),
      trailingNewline: fc.boolean(),
      chunk: fc.integer({ min: 1, max: 24 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(doc, async ({ bom, crlf, lines, trailingNewline, chunk }) => {
        const text = (bom ? "\ufeff" : "") + lines.join(crlf ? "\r\n" : "\n") + (trailingNewline ? "\n" : "");
        const id = `p${run++}`;
        await writeTree(root, { [`${id}/SKILL.md`]: text });
        const provider = new LocalFileSystemSkillProvider(root, { headChunkBytes: chunk });
        const expected = parseFrontmatter(text).frontmatter;
        const metadata = await provider.getMetadata(id).catch((e: unknown) => e);
        if (expected === undefined) expect(metadata).toBeInstanceOf(SkillValidationError);
        else expect(metadata).toEqual(expected);
        const whole = parseSkillMd(text);
        const closed = whole.diagnostics.every(
          (d) => d.code !== "frontmatter-missing" && d.code !== "frontmatter-unclosed",
        );
        const body = await provider.getBody(id).catch((e: unknown) => e);
        if (closed) expect(body).toBe(whole.body);
        else expect(body).toBeInstanceOf(SkillValidationError);
      }),
      { numRuns: 150 },
    );
  });

  it("caches SKILL.md text until invalidate, per skill or all; unknown ids are a no-op", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a", "one", "old a\n"),
      "b/SKILL.md": skillMd("b", "one", "old b\n"),
    });
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.getBody("a")).toBe("old a\n");
    expect(await provider.getBody("b")).toBe("old b\n");
    await writeTree(root, {
      "a/SKILL.md": skillMd("a", "two", "new a\n"),
      "b/SKILL.md": skillMd("b", "two", "new b\n"),
    });
    expect(await provider.getBody("a")).toBe("old a\n");
    expect((await provider.getMetadata("a")).description).toBe("one");
    provider.invalidate("no-such-skill");
    provider.invalidate("a");
    expect(await provider.getBody("a")).toBe("new a\n");
    expect((await provider.getMetadata("a")).description).toBe("two");
    expect(await provider.getBody("b")).toBe("old b\n");
    provider.invalidate();
    expect(await provider.getBody("b")).toBe("new b\n");
  });

  it("serves 20 concurrent getBody calls one value", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a") });
    const provider = new LocalFileSystemSkillProvider(root);
    const bodies = await Promise.all(Array.from({ length: 20 }, () => provider.getBody("a")));
    expect(new Set(bodies)).toEqual(new Set(["\n# a\n\nDo the thing.\n"]));
  });

  it("works without discover, and forgets a skill that disappears", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a") });
    const provider = new LocalFileSystemSkillProvider(root);
    expect((await provider.getMetadata("a")).name).toBe("a");
    await rm(path.join(root, "a"), { recursive: true });
    provider.invalidate("a");
    await expect(provider.getMetadata("a")).rejects.toBeInstanceOf(SkillNotFoundError);
  });
});

describe("malformed SKILL.md never crashes and never hides the other skills", () => {
  const aliasBomb = [
    "---",
    "name: bomb",
    "a: &a [x, x, x, x, x, x, x, x, x]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
    "---",
    "",
  ].join("\n");
  // `body`: the body is still served when the frontmatter is closed (getBody never parses YAML).
  const cases: {
    id: string;
    content: string | Uint8Array | { link: string };
    error: typeof SkillValidationError | typeof SkillNotFoundError;
    code?: string;
    body?: string;
  }[] = [
    { id: "no-frontmatter", content: "# Just markdown\n", error: SkillValidationError, code: "frontmatter-missing" },
    {
      id: "unclosed",
      content: "---\nname: unclosed\ndescription: never closed\n",
      error: SkillValidationError,
      code: "frontmatter-unclosed",
    },
    {
      id: "invalid-yaml",
      content: "---\nname: [unbalanced\n---\nbody\n",
      error: SkillValidationError,
      code: "yaml-invalid",
      body: "body\n",
    },
    { id: "not-a-mapping", content: "---\n- a\n- b\n---\n", error: SkillValidationError, body: "" },
    { id: "alias-bomb", content: aliasBomb, error: SkillValidationError, body: "" },
    {
      id: "huge-frontmatter",
      content: `---\nname: huge\ndescription: ${"x".repeat(300 * 1024)}\n---\n`,
      error: SkillValidationError,
      code: "frontmatter-too-large",
      body: "",
    },
    {
      id: "binary",
      content: bytes(0x00, 0x01, 0x02, 0xfe, 0xff, 0x00, 0x10),
      error: SkillValidationError,
      code: "encoding-invalid",
    },
    {
      id: "latin1",
      content: Buffer.from("---\nname: latin1\ndescription: caf\xe9\n---\n", "latin1"),
      error: SkillValidationError,
      code: "encoding-invalid",
    },
    { id: "empty", content: "", error: SkillValidationError, code: "frontmatter-missing" },
    { id: "dangling", content: { link: "../missing.md" }, error: SkillNotFoundError },
  ];

  it.each(cases)("$id → $error.name", async ({ id, content, error, code, body }) => {
    await writeTree(root, { [`${id}/SKILL.md`]: content, "good/SKILL.md": skillMd("good") });
    const provider = new LocalFileSystemSkillProvider(root);
    const ids = await provider.discover();
    expect(ids).toContain("good");
    const thrown = await provider.getMetadata(id).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(error);
    if (code !== undefined) expect((thrown as SkillValidationError).diagnostics[0]?.code).toBe(code);
    if (thrown instanceof SkillValidationError) expect(thrown.diagnostics[0]?.file).toBe(`${id}/SKILL.md`);
    expect((thrown as Error).message).toContain(JSON.stringify(id));
    expect((thrown as Error).message).not.toContain(root);
    if (body === undefined) await expect(provider.getBody(id)).rejects.toBeInstanceOf(AgentSkillsError);
    else expect(await provider.getBody(id)).toBe(body);
    expect(await provider.getMetadata("good")).toEqual({ name: "good", description: "The good skill." });
  });

  it("a directory named SKILL.md is not a skill", async () => {
    await writeTree(root, { "weird/SKILL.md/inner.txt": "x" });
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.discover()).toEqual([]);
    const error = await provider.getMetadata("weird").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillNotFoundError);
    expect((error as Error).message).toBe('skill not found: "weird" (SKILL.md is not a regular file)');
  });

  it("a FIFO named SKILL.md is refused without hanging", async () => {
    if (!hasBinary("mkfifo")) return;
    await mkdir(path.join(root, "fifo"));
    execFileSync("mkfifo", [path.join(root, "fifo", "SKILL.md")]);
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.discover()).toEqual([]);
    await expect(provider.getMetadata("fifo")).rejects.toBeInstanceOf(SkillNotFoundError);
  });
});

describe("size limits (checked with stat before reading)", () => {
  it.each([
    { max: 10, size: 10, ok: true },
    { max: 10, size: 11, ok: false },
    { max: 0, size: 0, ok: true },
    { max: 0, size: 1, ok: false },
  ])("resource of $size bytes with maxFileBytes $max → ok: $ok", async ({ max, size, ok }) => {
    const content = new Uint8Array(size).fill(0x61);
    await writeTree(root, { "a/SKILL.md": skillMd("a"), [`a/assets/f.bin`]: content });
    const provider = new LocalFileSystemSkillProvider(root, { maxFileBytes: max });
    for (const read of [() => provider.getAsset("a", "f.bin"), () => provider.readFile("a", "assets/f.bin")]) {
      if (ok) expect(await read()).toEqual(content);
      else {
        const error = await read().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ResourceTooLargeError);
        expect(error).toBeInstanceOf(ResourceNotFoundError);
        expect((error as ResourceTooLargeError).code).toBe("LIMIT_EXCEEDED");
        expect((error as Error).message).toBe(
          `skill "a": "assets/f.bin" is larger than the ${max}-byte limit (maxFileBytes)`,
        );
      }
    }
  });

  it("maxFileBytes defaults to 10 MiB: a file of exactly 10 MiB is served, one byte more is refused", async () => {
    const tenMiB = 10 * 1024 * 1024;
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/assets/at.bin": "",
      "a/assets/over.bin": "",
      "big/SKILL.md": skillMd("big"),
    });
    // Sparse files: the sizes are real, writing them costs nothing.
    await truncate(path.join(root, "a", "assets", "at.bin"), tenMiB);
    await truncate(path.join(root, "a", "assets", "over.bin"), tenMiB + 1);
    await truncate(path.join(root, "big", "SKILL.md"), tenMiB + 1);
    const provider = new LocalFileSystemSkillProvider(root);
    expect(provider.maxFileBytes).toBe(tenMiB);
    expect((await provider.getAsset("a", "at.bin")).byteLength).toBe(tenMiB);
    const before = bytesReadByProcess();
    await expect(provider.getAsset("a", "over.bin")).rejects.toBeInstanceOf(ResourceTooLargeError);
    await expect(provider.readFile("a", "assets/over.bin")).rejects.toBeInstanceOf(ResourceTooLargeError);
    await expect(provider.getMetadata("big")).rejects.toBeInstanceOf(SkillFileTooLargeError);
    await expect(provider.getBody("big")).rejects.toBeInstanceOf(SkillFileTooLargeError);
    // Sizes are checked before reading: refusing four files over 10 MiB reads (next to) nothing.
    if (!Number.isNaN(before)) expect(bytesReadByProcess() - before).toBeLessThan(256 * 1024);
  });

  it("an oversized SKILL.md is a SkillNotFoundError with the LIMIT_EXCEEDED code; exactly at the limit passes", async () => {
    const text = skillMd("a");
    const size = Buffer.byteLength(text);
    await writeTree(root, { "a/SKILL.md": text });
    const atLimit = new LocalFileSystemSkillProvider(root, { maxFileBytes: size });
    expect((await atLimit.getMetadata("a")).name).toBe("a");
    expect(await atLimit.getBody("a")).toBe("\n# a\n\nDo the thing.\n");
    const under = new LocalFileSystemSkillProvider(root, { maxFileBytes: size - 1 });
    for (const call of [() => under.getMetadata("a"), () => under.getBody("a")]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SkillFileTooLargeError);
      expect(error).toBeInstanceOf(SkillNotFoundError);
      expect((error as SkillFileTooLargeError).code).toBe("LIMIT_EXCEEDED");
    }
    await expect(new LocalFileSystemSkillProvider(root, { maxFileBytes: 0 }).getMetadata("a")).rejects.toBeInstanceOf(
      SkillFileTooLargeError,
    );
  });
});

describe("resources", () => {
  const binary = bytes(0x00, 0xff, 0x0d, 0x0a, 0x80, 0x7f);

  beforeEach(async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/references/notes.md": "# Notes\n",
      "a/references/zeta.md": "z",
      "a/references/.hidden.md": "h",
      "a/references/sub/deep.md": "deep",
      "a/references/inner-link.md": { link: "notes.md" },
      "a/references/up-link.md": { link: "../SKILL.md" },
      "e/SKILL.md": skillMd("e"),
      "e/references/b-link.md": { link: "../../b/references/x.md" },
      "a/scripts/run.sh": "#!/bin/sh\necho hi\n",
      "a/assets/blob.bin": binary,
      "a/assets/a..b.txt": "dots inside a name are fine",
      "b/SKILL.md": skillMd("b"),
      "b/references/x.md": "secret of b",
      "c/SKILL.md": skillMd("c"),
      "c/references": { link: "../b/references" }, // a kind folder that leaves the skill
      "d/SKILL.md": skillMd("d"),
    });
  });

  it("returns exact bytes as a plain Uint8Array", async () => {
    const provider = new LocalFileSystemSkillProvider(root);
    const asset = await provider.getAsset("a", "blob.bin");
    expect(asset.constructor).toBe(Uint8Array);
    expect(asset).toEqual(binary);
    expect(new TextDecoder().decode(await provider.getScript("a", "run.sh"))).toBe("#!/bin/sh\necho hi\n");
    expect(new TextDecoder().decode(await provider.getReference("a", "inner-link.md"))).toBe("# Notes\n");
    // A link inside the skill is served even when it leaves its kind folder: one link rule (decisions 0110, 0121).
    expect(new TextDecoder().decode(await provider.getReference("a", "up-link.md"))).toBe(skillMd("a"));
    expect(new TextDecoder().decode(await provider.getAsset("a", "a..b.txt"))).toBe("dots inside a name are fine");
  });

  it.each([
    ["../../b/references/x.md"],
    ["../SKILL.md"],
    ["sub"],
    ["sub/deep.md"],
    [".."],
    ["."],
    [""],
    ["a\\b"],
    ["x\0.md"],
    ["%2e%2e%2fSKILL.md"],
    ["/etc/passwd"],
    ["missing.md"],
  ])("getReference(a, %j) → ResourceNotFoundError", async (name) => {
    const provider = new LocalFileSystemSkillProvider(root);
    const error = await provider.getReference("a", name).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toContain('"a"');
    expect((error as Error).message).not.toContain(root);
  });

  it("never reads through a link that leaves the skill, and refuses the listing that would hold it", async () => {
    const provider = new LocalFileSystemSkillProvider(root);
    await expect(provider.getReference("c", "x.md")).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(provider.getReference("e", "b-link.md")).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(provider.readFile("e", "references/b-link.md")).rejects.toThrow(/leads outside/);
    for (const id of ["c", "e"]) {
      await expect(provider.listResources(id)).rejects.toBeInstanceOf(InvalidPathError);
      await expect(provider.listFiles(id)).rejects.toThrow(`in skill "${id}"`);
    }
  });

  it("lists regular files directly inside each kind folder, sorted, all keys present", async () => {
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.listResources("a")).toEqual({
      references: ["inner-link.md", "notes.md", "up-link.md", "zeta.md"],
      scripts: ["run.sh"],
      assets: ["a..b.txt", "blob.bin"],
    });
    expect(await provider.listResources("d")).toEqual({ references: [], scripts: [], assets: [] });
    await expect(provider.listResources("nope")).rejects.toBeInstanceOf(SkillNotFoundError);
    await expect(provider.getReference("nope", "notes.md")).rejects.toBeInstanceOf(SkillNotFoundError);
  });

  it("property: names with / \\ .. or NUL never read anything", async () => {
    const provider = new LocalFileSystemSkillProvider(root);
    const bad = fc
      .tuple(fc.string({ maxLength: 8 }), fc.constantFrom("/", "\\", "\0", "../", "/.."), fc.string({ maxLength: 8 }))
      .map(([a, sep, b]) => `${a}${sep}${b}`);
    await fc.assert(
      fc.asyncProperty(bad, fc.constantFrom("getReference", "getScript", "getAsset"), async (name, getter) => {
        const error = await provider[getter]("a", name).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ResourceNotFoundError);
      }),
      { numRuns: 200 },
    );
  });

  it("property: unsafe skill ids are not found", async () => {
    const provider = new LocalFileSystemSkillProvider(root);
    const bad = fc.oneof(
      fc
        .tuple(fc.string({ maxLength: 6 }), fc.constantFrom("/", "\\", "\0", ".."), fc.string({ maxLength: 6 }))
        .map(([a, s, b]) => `${a}${s}${b}`),
      fc.string({ maxLength: 6 }).map((s) => `.${s}`),
      fc.constant(""),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (id) => {
        if (["a", "b", "c", "d"].includes(id)) return;
        await expect(provider.getMetadata(id)).rejects.toBeInstanceOf(SkillNotFoundError);
        await expect(provider.getBody(id)).rejects.toBeInstanceOf(SkillNotFoundError);
      }),
      { numRuns: 200 },
    );
  });
});

describe("listFiles and readFile", () => {
  it("lists the whole tree, hidden files included, sorted, with sizes", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/.env.example": "K=V\n",
      "a/references/notes.md": "# Notes\n",
      "a/scripts/lib/util.py": "print(1)\n",
      "a/empty-dir": { dir: true },
    });
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.listFiles("a")).toEqual([
      { path: ".env.example", size: 4 },
      { path: "SKILL.md", size: Buffer.byteLength(skillMd("a")) },
      { path: "references/notes.md", size: 8 },
      { path: "scripts/lib/util.py", size: 9 },
    ]);
    expect(new TextDecoder().decode(await provider.readFile("a", "scripts/lib/util.py"))).toBe("print(1)\n");
  });

  it("lists links inside the skill with the target's size, and rejects links leaving it instead of skipping them", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/references/notes.md": "n",
      "a/references/link.md": { link: "notes.md" },
      "a/docs": { link: "references" },
      "b/SKILL.md": skillMd("b"),
      "b/references/notes.md": "n",
      "b/references/out.md": { link: "../../a/references/notes.md" },
      "c/SKILL.md": skillMd("c"),
      "c/gone.md": { link: "nowhere.md" },
    });
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.listFiles("a")).toEqual([
      { path: "SKILL.md", size: Buffer.byteLength(skillMd("a")) },
      { path: "docs/link.md", size: 1 },
      { path: "docs/notes.md", size: 1 },
      { path: "references/link.md", size: 1 },
      { path: "references/notes.md", size: 1 },
    ]);
    for (const [id, rel, why] of [
      ["b", "references/out.md", "leads outside the skill"],
      ["c", "gone.md", "target does not exist"],
    ] as const) {
      const error = await provider.listFiles(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidPathError);
      expect((error as InvalidPathError).path).toBe(rel);
      expect((error as Error).message).toContain(`skill "${id}"`);
      expect((error as Error).message).toContain(why);
      await expect(provider.readFile(id, rel)).rejects.toBeInstanceOf(InvalidPathError);
    }
  });

  it("rejects special files in listFiles and readFile", async () => {
    if (!hasBinary("mkfifo")) return;
    await writeTree(root, { "a/SKILL.md": skillMd("a") });
    execFileSync("mkfifo", [path.join(root, "a", "pipe")]);
    const provider = new LocalFileSystemSkillProvider(root);
    await expect(provider.listFiles("a")).rejects.toBeInstanceOf(InvalidPathError);
    await expect(provider.readFile("a", "pipe")).rejects.toThrow('skill "a": "pipe" is not a regular file');
  });

  it("rejects names readFile could never serve", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a"), "a/assets/x:y.txt": "x" });
    const error = await new LocalFileSystemSkillProvider(root).listFiles("a").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPathError);
    expect((error as InvalidPathError).path).toBe("assets/x:y.txt");
  });

  it("enforces the listing limits", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a"), "a/x/y/z.txt": "z", "a/b.txt": "b" });
    await expect(new LocalFileSystemSkillProvider(root, { maxListFiles: 2 }).listFiles("a")).rejects.toBeInstanceOf(
      LimitExceededError,
    );
    await expect(new LocalFileSystemSkillProvider(root, { maxListDepth: 1 }).listFiles("a")).rejects.toBeInstanceOf(
      LimitExceededError,
    );
    expect(
      await new LocalFileSystemSkillProvider(root, { maxListFiles: 3, maxListDepth: 2 }).listFiles("a"),
    ).toHaveLength(3);
  });

  it("reads original bytes, bypassing the SKILL.md cache", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a", "one") });
    const provider = new LocalFileSystemSkillProvider(root);
    expect((await provider.getMetadata("a")).description).toBe("one");
    await writeFile(path.join(root, "a", "SKILL.md"), "changed\r\n");
    expect(await provider.readFile("a", "SKILL.md")).toEqual(
      new Uint8Array(await readFile(path.join(root, "a", "SKILL.md"))),
    );
    expect((await provider.getMetadata("a")).description).toBe("one");
  });

  it("serves links that stay inside the skill: a final link and a link on the way", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/references/notes.md": "n",
      "a/link.md": { link: "references/notes.md" },
      "a/linkdir": { link: "references" },
    });
    const provider = new LocalFileSystemSkillProvider(root);
    expect(new TextDecoder().decode(await provider.readFile("a", "link.md"))).toBe("n");
    expect(new TextDecoder().decode(await provider.readFile("a", "linkdir/notes.md"))).toBe("n");
  });

  it.each([
    ["../b/SKILL.md", "traversal"],
    ["references/../../b/SKILL.md", "traversal inside"],
    ["/etc/passwd", "absolute"],
    ["references\\notes.md", "backslash"],
    ["c:notes.md", "colon"],
    ["references//notes.md", "empty segment"],
    ["./SKILL.md", "dot segment"],
    ["missing.md", "missing"],
    ["references", "a directory"],
  ])("readFile(a, %j) (%s) → ResourceNotFoundError", async (p) => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/references/notes.md": "n",
      "a/link.md": { link: "references/notes.md" },
      "a/linkdir": { link: "references" },
      "b/SKILL.md": skillMd("b"),
    });
    const provider = new LocalFileSystemSkillProvider(root);
    const error = await provider.readFile("a", p).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).not.toContain(root);
  });
});

describe("a skill directory swapped for a link after discovery", () => {
  it("is re-checked before listing or reading resources and the body", async () => {
    const outside = await makeTempDir();
    try {
      await writeTree(outside, { "SKILL.md": skillMd("a", "outside"), "references/secret.md": "secret" });
      await writeTree(root, { "a/SKILL.md": skillMd("a"), "a/references/secret.md": "mine" });
      const provider = new LocalFileSystemSkillProvider(root);
      expect(await provider.discover()).toEqual(["a"]);
      await rm(path.join(root, "a"), { recursive: true });
      await writeTree(root, { a: { link: outside } });
      for (const call of [
        () => provider.listFiles("a"),
        () => provider.listResources("a"),
        () => provider.getBody("a"),
        () => provider.readFile("a", "SKILL.md"),
        () => provider.getReference("a", "secret.md"),
      ]) {
        await expect(call()).rejects.toBeInstanceOf(SkillNotFoundError);
      }
    } finally {
      await removeDir(outside);
    }
  });
});

describe("errors name skills, never host paths", () => {
  it("every failing call answers with a typed error without the root path", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/references/link.md": { link: "/etc/hostname" },
      "bad/SKILL.md": "no frontmatter",
    });
    const provider = new LocalFileSystemSkillProvider(root, { maxFileBytes: 8 });
    const calls: [string, () => Promise<unknown>][] = [
      ["metadata of unknown", () => provider.getMetadata("zzz")],
      ["body of unknown", () => provider.getBody("zzz")],
      ["listResources of unknown", () => provider.listResources("zzz")],
      ["listFiles of unknown", () => provider.listFiles("zzz")],
      ["readFile of unknown", () => provider.readFile("zzz", "SKILL.md")],
      ["location of unknown", () => provider.getLocation("zzz")],
      ["too large", () => provider.getMetadata("a")],
      ["bad frontmatter", () => new LocalFileSystemSkillProvider(root).getMetadata("bad")],
      ["link listed", () => provider.listFiles("a")],
      ["link read", () => provider.readFile("a", "references/link.md")],
      ["link by getter", () => provider.getReference("a", "link.md")],
    ];
    for (const [label, call] of calls) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, label).toBeInstanceOf(AgentSkillsError);
      expect((error as Error).message, label).not.toContain(root);
      expect((error as Error).message, label).not.toContain("/etc/hostname");
    }
  });

  it("property: readFile serves nothing for traversal-shaped paths", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a"), "b/SKILL.md": skillMd("b") });
    const provider = new LocalFileSystemSkillProvider(root);
    const segment = fc.constantFrom("..", ".", "", "SKILL.md", "b", "%2e%2e", "a\\b", "c:", "x\0");
    const unsafe = fc
      .array(segment, { minLength: 1, maxLength: 5 })
      .map((parts) => parts.join("/"))
      .filter((p) => p !== "SKILL.md");
    await fc.assert(
      fc.asyncProperty(unsafe, async (p) => {
        await expect(provider.readFile("a", p)).rejects.toBeInstanceOf(ResourceNotFoundError);
      }),
      { numRuns: 200 },
    );
  });
});
