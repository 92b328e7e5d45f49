import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lstat, readFile, readdir, stat, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError, LimitExceededError } from "@skillport/core";
import { ArchiveError, packDirectory, readArchive, unpackArchive, detectArchiveFormat } from "./index.js";
import { execFileSync, spawnSync } from "node:child_process";
import {
  buildTar,
  buildTarGz,
  buildZip,
  skillMd,
  systemDependency,
  tempDir,
  writeTree,
  type RawZipEntry,
} from "./__fixtures__/archives.js";

const systemTar = systemDependency("tar", spawnSync("sh", ["-c", "command -v tar"]).status === 0, console.warn);

const SKILL = { name: "skills/a/SKILL.md", data: skillMd("a") };

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(async () => cleanup());

type Refusal = { error: new (...args: never[]) => Error; reason?: string; limit?: string; message: RegExp };

const zipCases: [string, RawZipEntry[], Refusal][] = [
  [
    "zip-slip ../x",
    [SKILL, { name: "../x", data: "evil" }],
    { error: InvalidPathError, message: /"\.\.\/x".*segment "\.\." is not allowed/ },
  ],
  [
    "nested zip-slip",
    [SKILL, { name: "skills/a/../../../x", data: "evil" }],
    { error: InvalidPathError, message: /segment "\.\."/ },
  ],
  ["absolute /etc/x", [SKILL, { name: "/etc/x", data: "evil" }], { error: InvalidPathError, message: /absolute path/ }],
  [
    "drive letter C:\\x",
    [SKILL, { name: "C:\\x", data: "evil" }],
    { error: InvalidPathError, message: /drive-letter path/ },
  ],
  [
    "backslash traversal",
    [SKILL, { name: "..\\..\\x", data: "evil" }],
    { error: InvalidPathError, message: /backslash|segment/ },
  ],
  ["NUL in name", [SKILL, { name: "skills/a/x\u0000.md", data: "evil" }], { error: InvalidPathError, message: /NUL/ }],
  [
    "symlink entry",
    [SKILL, { name: "skills/a/link", data: "/etc/passwd", unixMode: 0o120777 }],
    { error: ArchiveError, reason: "symlink", message: /skills\/a\/link is a symbolic link/ },
  ],
  [
    "fifo entry",
    [SKILL, { name: "skills/a/pipe", unixMode: 0o010644 }],
    { error: ArchiveError, reason: "special-file", message: /skills\/a\/pipe is a device/ },
  ],
  [
    "encrypted flag",
    [SKILL, { name: "skills/a/secret.txt", data: "x", flags: 1 }],
    { error: ArchiveError, reason: "encrypted", message: /skills\/a\/secret\.txt is encrypted/ },
  ],
  [
    "strong-encryption flag alone (bit 6)",
    [SKILL, { name: "skills/a/secret.txt", data: "x", flags: 0x40 }],
    { error: ArchiveError, reason: "encrypted", message: /skills\/a\/secret\.txt is encrypted/ },
  ],
  [
    "unsupported method",
    [SKILL, { name: "skills/a/x.bz2", data: "x", method: 12 }],
    { error: ArchiveError, reason: "unsupported-compression", message: /method 12/ },
  ],
  [
    "duplicate case A.md/a.md",
    [SKILL, { name: "skills/a/A.md", data: "1" }, { name: "skills/a/a.md", data: "2" }],
    { error: ArchiveError, reason: "duplicate", message: /skills\/a\/A\.md and skills\/a\/a\.md/ },
  ],
  [
    "duplicate after NFC",
    [SKILL, { name: "skills/a/caf\u00e9.md", data: "1" }, { name: "skills/a/cafe\u0301.md", data: "2" }],
    { error: ArchiveError, reason: "duplicate", message: /same file/ },
  ],
  [
    "file below a file",
    [SKILL, { name: "skills/a/x", data: "1" }, { name: "skills/a/x/y", data: "2" }],
    { error: ArchiveError, reason: "path-conflict", message: /lies below skills\/a\/x/ },
  ],
  [
    "invalid UTF-8 name",
    [SKILL, { name: Buffer.from([0x73, 0xff, 0xfe]), data: "1" }],
    { error: ArchiveError, reason: "name-encoding", message: /not/ },
  ],
  [
    "zip bomb by ratio",
    [SKILL, { name: "skills/a/zeros.bin", data: Buffer.alloc(8 * 1024 * 1024) }],
    { error: LimitExceededError, limit: "maxCompressionRatio", message: /skills\/a\/zeros\.bin expands \d+x/ },
  ],
  [
    "lying size (more data than declared)",
    [SKILL, { name: "skills/a/big.txt", data: "y".repeat(50_000), declaredSize: 100 }],
    { error: ArchiveError, reason: "size-mismatch", message: /skills\/a\/big\.txt/ },
  ],
  [
    "lying size (less data than declared)",
    [
      SKILL,
      { name: "skills/a/short.txt", data: "y".repeat(10), method: 0, declaredSize: 10 },
      { name: "skills/a/s2.txt", data: "abc", declaredSize: 3000 },
    ],
    { error: ArchiveError, reason: "size-mismatch", message: /skills\/a\/s2\.txt/ },
  ],
  [
    "CRC-32 mismatch",
    [SKILL, { name: "skills/a/x.txt", data: "tampered", crc: 0x12345678 }],
    { error: ArchiveError, reason: "corrupt", message: /skills\/a\/x\.txt fails its CRC-32 check/ },
  ],
  [
    "huge entry count",
    [SKILL, ...Array.from({ length: 1001 }, (_, i) => ({ name: `skills/a/f${i}.txt`, data: "x" }))],
    { error: LimitExceededError, limit: "maxFiles", message: /1002 entries, more than the 1000 allowed/ },
  ],
  [
    "too deep",
    [SKILL, { name: `skills/${"d/".repeat(12)}x.txt`, data: "x" }],
    { error: LimitExceededError, limit: "maxDepth", message: /deeper than 12 levels/ },
  ],
  ["empty archive", [], { error: ArchiveError, reason: "empty", message: /empty/ }],
];

const tarCases: [string, Buffer, Refusal][] = [
  [
    "tar zip-slip",
    buildTar([SKILL, { name: "../evil", data: "x" }]),
    { error: InvalidPathError, message: /segment "\.\."/ },
  ],
  [
    "tar absolute",
    buildTar([SKILL, { name: "/etc/evil", data: "x" }]),
    { error: InvalidPathError, message: /absolute path/ },
  ],
  [
    "tar symlink",
    buildTar([SKILL, { name: "skills/a/l", type: "2", linkname: "/etc/passwd" }]),
    { error: ArchiveError, reason: "symlink", message: /skills\/a\/l is a symbolic link/ },
  ],
  [
    "tar hard link",
    buildTar([SKILL, { name: "skills/a/h", type: "1", linkname: "skills/a/SKILL.md" }]),
    { error: ArchiveError, reason: "hardlink", message: /skills\/a\/h is a hard link/ },
  ],
  [
    "tar char device",
    buildTar([SKILL, { name: "skills/a/null", type: "3" }]),
    { error: ArchiveError, reason: "special-file", message: /skills\/a\/null is a device/ },
  ],
  [
    "tar block device",
    buildTar([SKILL, { name: "skills/a/sda", type: "4" }]),
    { error: ArchiveError, reason: "special-file", message: /skills\/a\/sda/ },
  ],
  [
    "tar fifo",
    buildTar([SKILL, { name: "skills/a/fifo", type: "6" }]),
    { error: ArchiveError, reason: "special-file", message: /skills\/a\/fifo/ },
  ],
  [
    "tar.gz duplicate case",
    buildTarGz([SKILL, { name: "skills/a/X.md", data: "1" }, { name: "skills/a/x.md", data: "2" }]),
    { error: ArchiveError, reason: "duplicate", message: /X\.md and skills\/a\/x\.md/ },
  ],
  [
    "tar.gz bomb",
    buildTarGz([SKILL, { name: "skills/a/zeros", data: Buffer.alloc(8 * 1024 * 1024) }]),
    { error: LimitExceededError, limit: "maxCompressionRatio", message: /gzip bomb/ },
  ],
  [
    "tar huge entry count",
    buildTar([SKILL, ...Array.from({ length: 1000 }, (_, i) => ({ name: `skills/a/f${i}`, data: "" }))]),
    { error: LimitExceededError, limit: "maxFiles", message: /more than the 1000 entries allowed/ },
  ],
  [
    "tar.gz of 50,000 empty files (stops at the limit)",
    buildTarGz(Array.from({ length: 50_000 }, (_, i) => ({ name: `f${i}` }))),
    { error: LimitExceededError, limit: "maxFiles", message: /more than the 1000 entries allowed/ },
  ],
  [
    "not an archive",
    Buffer.from("just some text, long enough to not be anything"),
    { error: ArchiveError, reason: "unknown-format", message: /not a zip, tar or tar\.gz/ },
  ],
];

describe("unpackArchive refuses malicious archives and writes nothing", () => {
  const all: [string, Buffer, Refusal][] = [
    ...zipCases.map(([n, e, r]): [string, Buffer, Refusal] => [n, buildZip(e), r]),
    ...tarCases,
  ];
  it.each(all)("%s", async (_name, bytes, refusal) => {
    const dest = path.join(dir, "out", "pkg");
    const error = await unpackArchive(bytes, dest).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(refusal.error);
    expect((error as Error).message).toMatch(refusal.message);
    if (refusal.reason) expect((error as ArchiveError).reason).toBe(refusal.reason);
    if (refusal.limit) expect((error as LimitExceededError).limit).toBe(refusal.limit);
    // Nothing written: not the destination, not its parent, not a temp dir.
    expect(await readdir(dir)).toEqual([]);
  });

  it("leaves an existing empty destination exactly as it was", async () => {
    const dest = path.join(dir, "pkg");
    await mkdir(dest);
    await expect(unpackArchive(buildZip([SKILL, { name: "../x", data: "x" }]), dest)).rejects.toBeInstanceOf(
      InvalidPathError,
    );
    expect(await readdir(dest)).toEqual([]);
    expect(await readdir(dir)).toEqual(["pkg"]);
  });

  it("a corrupt entry found while files are being written leaves no file, temp dir or created parent behind", async () => {
    // Files are written as they are inflated (decision 0222): the bad entry sorts last, after good files were written.
    const good = Array.from({ length: 20 }, (_, i) => ({
      name: `skills/a/f${String(i).padStart(2, "0")}.txt`,
      data: `file ${i}\n`.repeat(500),
    }));
    const bytes = buildZip([SKILL, ...good, { name: "skills/a/zz.txt", data: "tampered", crc: 0x12345678 }]);
    await writeTree(path.join(dir, "kept"), { "mine.txt": "mine" });
    await expect(unpackArchive(bytes, path.join(dir, "kept", "pkg"))).rejects.toMatchObject({ reason: "corrupt" });
    expect(await readdir(path.join(dir, "kept"))).toEqual(["mine.txt"]); // an existing parent keeps its content
    await expect(unpackArchive(bytes, path.join(dir, "new", "deeper", "pkg"))).rejects.toMatchObject({
      reason: "corrupt",
    });
    expect((await readdir(dir)).sort()).toEqual(["kept"]); // parents this call created are gone again
  });

  it("refuses a non-empty destination before reading the archive", async () => {
    const dest = path.join(dir, "pkg");
    await writeTree(dest, { "keep.txt": "mine" });
    await expect(unpackArchive(buildZip([SKILL]), dest)).rejects.toThrow(
      /already exists and is not an empty directory/,
    );
    expect(await readFile(path.join(dest, "keep.txt"), "utf8")).toBe("mine");
  });

  it("refuses an archive over maxArchiveBytes without reading it", async () => {
    const file = path.join(dir, "big.zip");
    await writeFile(file, buildZip([SKILL, { name: "skills/a/x", data: Buffer.alloc(5000, 1), method: 0 }]));
    await expect(
      unpackArchive(file, path.join(dir, "out"), { limits: { maxArchiveBytes: 1000 } }),
    ).rejects.toMatchObject({ limit: "maxArchiveBytes" });
    expect(await readdir(dir)).toEqual(["big.zip"]);
  });

  it.each([
    ["maxFileBytes", { maxFileBytes: 10 }, /skills\/a\/SKILL\.md is \d+ B, over the 10 B per-file limit/],
    ["maxTotalBytes", { maxTotalBytes: 50 }, /expands to more than 50 B/],
    ["maxFiles", { maxFiles: 1 }, /2 entries, more than the 1 allowed/],
  ])("enforces %s", async (limit, limits, message) => {
    const bytes = buildZip([SKILL, { name: "skills/a/b.txt", data: "b" }]);
    const error = await unpackArchive(bytes, path.join(dir, "out"), { limits }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).limit).toBe(limit);
    expect((error as Error).message).toMatch(message);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("unpackArchive extracts good archives", () => {
  it("round-trips a packed workspace with the same versionId and modes", async () => {
    const src = path.join(dir, "src");
    await writeTree(src, {
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/scripts/run.sh": "#!/bin/sh\necho hi\n",
      "entrypoint.sh": "echo init\n",
      "README.md": "hi",
    });
    const packed = await packDirectory(src);
    const dest = path.join(dir, "deploy", "v1");
    const result = await unpackArchive(packed.archive, dest);
    expect(result.format).toBe("zip");
    expect(result.versionId).toBe(packed.versionId);
    expect(result.digest).toBe(packed.digest);
    expect(result.files.map((f) => f.path)).toEqual([
      "README.md",
      "entrypoint.sh",
      "skills/a/SKILL.md",
      "skills/a/scripts/run.sh",
    ]);
    expect((await stat(path.join(dest, "entrypoint.sh"))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(dest, "README.md"))).mode & 0o777).toBe(0o644);
    expect(await readFile(path.join(dest, "skills/a/scripts/run.sh"), "utf8")).toBe("#!/bin/sh\necho hi\n");
    expect((await readdir(path.join(dir, "deploy"))).sort()).toEqual(["v1"]); // no temp dir left behind
  });

  it.each([0o077, 0o000, 0o027])("writes exact 0755/0644 modes whatever the umask (%o)", async (umask) => {
    const bytes = buildZip([
      SKILL,
      { name: "skills/a/run.sh", data: "echo\n", unixMode: 0o100700 },
      { name: "skills/a/docs/x.md", data: "x", unixMode: 0o100600 },
    ]);
    const dest = path.join(dir, "out");
    const previous = process.umask(umask);
    try {
      await unpackArchive(bytes, dest);
    } finally {
      process.umask(previous);
    }
    const mode = async (rel: string) => (await stat(path.join(dest, rel))).mode & 0o777;
    expect([
      await mode("skills/a/run.sh"),
      await mode("skills/a/SKILL.md"),
      await mode("skills/a/docs/x.md"),
      await mode("."),
    ]).toEqual([0o755, 0o644, 0o644, 0o755]);
  });

  it("refuses an entry whose local header is missing or whose data runs past the end, writing nothing", async () => {
    const good = buildZip([SKILL, { name: "skills/a/b.txt", data: "bbbb", method: 0 }]);
    const second = good.indexOf(Buffer.from("skills/a/b.txt")) - 30; // the second local header
    const noHeader = Buffer.from(good);
    noHeader.writeUInt32LE(0, second);
    const pastEnd = Buffer.from(good);
    pastEnd.writeUInt16LE(0xffff, second + 28); // extra field length pointing beyond the archive
    for (const [bytes, message] of [
      [noHeader, /skills\/a\/b\.txt .*no local file header/],
      [pastEnd, /skills\/a\/b\.txt .*past the end/],
    ] as const) {
      const error = await unpackArchive(bytes, path.join(dir, "out")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ArchiveError);
      expect((error as ArchiveError).reason).toBe("corrupt");
      expect((error as Error).message).toMatch(message);
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("unpacks into an existing empty directory", async () => {
    const dest = path.join(dir, "empty");
    await mkdir(dest);
    const result = await unpackArchive(buildZip([SKILL]), dest);
    expect(result.files.map((f) => f.path)).toEqual(["skills/a/SKILL.md"]);
    expect(await readFile(path.join(dest, "skills/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
    expect(await readdir(dir)).toEqual(["empty"]);
  });

  it("drops OS junk and strips one wrapper directory in front of skills/", async () => {
    const bytes = buildZip([
      { name: "my-pkg/", unixMode: 0o040755 },
      { name: "my-pkg/skills/a/SKILL.md", data: skillMd("a") },
      { name: "my-pkg/.DS_Store", data: "junk" },
      { name: "my-pkg/skills/a/._SKILL.md", data: "junk" },
      { name: "my-pkg/skills/Thumbs.db", data: "junk" },
      { name: "my-pkg/desktop.ini", data: "junk" },
      { name: "__MACOSX/my-pkg/skills/a/._SKILL.md", data: "junk" },
      { name: "my-pkg/entrypoint.sh", data: "echo hi\n" },
    ]);
    const dest = path.join(dir, "out");
    const result = await unpackArchive(bytes, dest);
    expect(result.strippedPrefix).toBe("my-pkg");
    expect(result.files.map((f) => f.path)).toEqual(["entrypoint.sh", "skills/a/SKILL.md"]);
    expect(result.dropped).toEqual([
      { path: "__MACOSX/my-pkg/skills/a/._SKILL.md", reason: "os junk (__MACOSX)" },
      { path: "my-pkg/.DS_Store", reason: "os junk (.DS_Store)" },
      { path: "my-pkg/desktop.ini", reason: "os junk (desktop.ini)" },
      { path: "my-pkg/skills/Thumbs.db", reason: "os junk (Thumbs.db)" },
      { path: "my-pkg/skills/a/._SKILL.md", reason: "os junk (._*)" },
    ]);
    expect((await readdir(dest)).sort()).toEqual(["entrypoint.sh", "skills"]);
  });

  it("keeps a directory that merely contains skills/ deeper down as it is", async () => {
    const bytes = buildZip([
      { name: "skills/a/SKILL.md", data: skillMd("a") },
      { name: "other/skills/x.md", data: "x" },
    ]);
    const result = await readArchive(bytes);
    expect(result.strippedPrefix).toBeUndefined();
    expect(result.files.map((f) => f.path)).toEqual(["other/skills/x.md", "skills/a/SKILL.md"]);
  });

  it.each([
    [
      "tar",
      buildTar([
        { name: "./", type: "5" },
        { name: "./skills/a/SKILL.md", data: skillMd("a") },
        { name: "./run.sh", data: "echo\n", mode: 0o700 },
      ]),
    ],
    [
      "tar.gz",
      buildTarGz([
        { name: "skills/", type: "5" },
        { name: "skills/a/SKILL.md", data: skillMd("a") },
        { name: "run.sh", data: "echo\n", mode: 0o755 },
      ]),
    ],
  ])("extracts %s with modes normalised", async (format, bytes) => {
    expect(detectArchiveFormat(bytes)).toBe(format);
    const dest = path.join(dir, "out");
    const result = await unpackArchive(bytes, dest);
    expect(result.format).toBe(format);
    expect(result.files.map((f) => [f.path, f.mode])).toEqual([
      ["run.sh", 0o755],
      ["skills/a/SKILL.md", 0o644],
    ]);
    expect((await lstat(path.join(dest, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readFile(path.join(dest, "skills/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
  });

  it.skipIf(systemTar.skip)(
    "reads a .tar.gz made by GNU tar (with its ./ prefix and directory entries) to the packer's versionId",
    async () => {
      const src = path.join(dir, "src");
      await writeTree(src, {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/scripts/run.sh": "echo\n",
        "requirements.txt": "x\n",
      });
      const packed = await packDirectory(src);
      const tgz = path.join(dir, "pkg.tgz");
      execFileSync("tar", ["-czf", tgz, "-C", src, "."]);
      const result = await unpackArchive(tgz, path.join(dir, "out"));
      expect(result.format).toBe("tar.gz");
      expect(result.versionId).toBe(packed.versionId);
      expect(result.directories).toEqual(["skills", "skills/a", "skills/a/scripts"]);
    },
  );
});
