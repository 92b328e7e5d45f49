import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { availableDialects, createTestDatabase, type TestDatabase } from "../../../sql/src/test-support/databases.js";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const BINARY = new Uint8Array([0x00, 0xff, 0xfe, 0x80, 0x81, 0x0d, 0x0a]);
const SECRET = "Hunter2SecretPw";

const dialects = await availableDialects();
const servers: TestDatabase[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.drop()));
});

function skillsTree(extra: Record<string, string | Uint8Array> = {}) {
  return {
    "skills/alpha/SKILL.md": skillMd("alpha"),
    "skills/alpha/references/guide.md": "# Guide\n",
    "skills/alpha/assets/logo.bin": BINARY,
    "skills/beta/SKILL.md": skillMd("beta", "Beta things. Use when the user asks for beta."),
    "skills/beta/scripts/run.sh": "#!/bin/sh\necho beta\n",
    ...extra,
  };
}

describe("skillport copy and SQL roots", () => {
  const tree = useTempTrees();

  it("copies a folder into SQLite; list, show, validate, search and prompt read it back", async () => {
    const dir = await tree(skillsTree());
    const copy = await runInProcess(["copy", "skills", "sqlite:./skills.db", "--json"], dir);
    expect(copy.code, copy.stderr).toBe(0);
    expect(JSON.parse(copy.stdout)).toMatchObject({
      from: "fs:skills",
      to: "sqlite:./skills.db",
      copied: ["alpha", "beta"],
      skipped: [],
      failed: [],
    });

    const list = await runInProcess(["list", "sqlite:./skills.db", "--json"], dir);
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as { skills: Array<{ id: string; source: string; qualifiedId: string }> };
    expect(listed.skills.map((s) => [s.id, s.source, s.qualifiedId])).toEqual([
      ["alpha", "sqlite:./skills.db", "sqlite:./skills.db:alpha"],
      ["beta", "sqlite:./skills.db", "sqlite:./skills.db:beta"],
    ]);

    const show = await runInProcess(["show", "alpha", "--root", "sqlite:./skills.db", "--json"], dir);
    expect(JSON.parse(show.stdout).files.map((f: { path: string }) => f.path)).toEqual([
      "SKILL.md",
      "assets/logo.bin",
      "references/guide.md",
    ]);
    const file = await runInProcess(
      ["show", "sqlite:./skills.db:beta", "--root", "sqlite:./skills.db", "--file", "scripts/run.sh"],
      dir,
    );
    expect(file.stdout).toBe("#!/bin/sh\necho beta\n");

    const validate = await runInProcess(["validate", "sqlite:./skills.db", "--format", "json"], dir);
    expect(validate.code, validate.stderr).toBe(0);
    expect(JSON.parse(validate.stdout).skills.map((s: { path: string }) => s.path)).toEqual([
      "sqlite:./skills.db:alpha/SKILL.md",
      "sqlite:./skills.db:beta/SKILL.md",
    ]);

    const search = await runInProcess(["search", "beta things", "sqlite:./skills.db", "--json"], dir);
    expect(JSON.parse(search.stdout).results[0].id).toBe("beta");
    const prompt = await runInProcess(["prompt", "sqlite:./skills.db", "--format", "json"], dir);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain("alpha");
  });

  it("validate reports the stored SKILL.md text with its line numbers", async () => {
    const dir = await tree({
      "skills/odd/SKILL.md":
        "---\nname: odd\ndescription: Odd. Use when testing.\nhomepage: https://example.com\n---\nBody\n",
    });
    expect((await runInProcess(["copy", "skills", "sqlite:./s.db"], dir)).code).toBe(0);
    const run = await runInProcess(["validate", "sqlite:./s.db"], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^sqlite:\.\/s\.db:odd\/SKILL\.md:4:1 {2}error {2}field-unexpected/m);
  });

  it("copies back out of SQL into a new folder, byte for byte, and SQL into SQL", async () => {
    const dir = await tree(skillsTree());
    expect((await runInProcess(["copy", "skills", "sqlite:./a.db"], dir)).code).toBe(0);
    expect((await runInProcess(["copy", "sqlite:./a.db", "sqlite:./b.db"], dir)).code).toBe(0);
    const out = await runInProcess(["copy", "sqlite:./b.db", "restored"], dir);
    expect(out.code, out.stderr).toBe(0);
    expect(new Uint8Array(await readFile(path.join(dir, "restored/alpha/assets/logo.bin")))).toEqual(BINARY);
    expect(await readFile(path.join(dir, "restored/beta/scripts/run.sh"), "utf8")).toBe("#!/bin/sh\necho beta\n");
    expect(await readFile(path.join(dir, "restored/alpha/SKILL.md"), "utf8")).toBe(skillMd("alpha"));
  });

  it("existing skills: unchanged when identical, skipped (exit 1) without --force, replaced with it; --dry-run writes nothing", async () => {
    const dir = await tree(skillsTree());
    expect((await runInProcess(["copy", "skills", "sqlite:./s.db"], dir)).code).toBe(0);
    const again = await runInProcess(["copy", "skills", "sqlite:./s.db", "--json"], dir);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ copied: [], unchanged: ["alpha", "beta"] });

    await writeFile(path.join(dir, "skills/beta/SKILL.md"), skillMd("beta", "Changed beta. Use when testing."));
    const skipped = await runInProcess(["copy", "skills", "sqlite:./s.db"], dir);
    expect(skipped.code).toBe(1);
    expect(skipped.stdout).toContain("skipped  beta (exists at the target; --force replaces it)");

    const dry = await runInProcess(["copy", "skills", "sqlite:./s.db", "--force", "--dry-run", "--json"], dir);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, replaced: ["beta"], unchanged: ["alpha"] });
    const before = await runInProcess(["show", "beta", "--root", "sqlite:./s.db", "--json"], dir);
    expect(JSON.parse(before.stdout).metadata.description).not.toContain("Changed");

    const forced = await runInProcess(["copy", "skills", "sqlite:./s.db", "--force", "--json"], dir);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ replaced: ["beta"], unchanged: ["alpha"] });
    const after = await runInProcess(["show", "beta", "--root", "sqlite:./s.db", "--json"], dir);
    expect(JSON.parse(after.stdout).metadata.description).toBe("Changed beta. Use when testing.");
  });

  it("reading never creates a database; unknown schemes and unreadable remote addresses are errors (exit 2)", async () => {
    const dir = await tree(skillsTree());
    const missing = await runInProcess(["list", "sqlite:./nope.db"], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such database file");
    await expect(readFile(path.join(dir, "nope.db"))).rejects.toThrow();
    const unknown = await runInProcess(["list", "ftp://example.com/skills"], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown source scheme "ftp:"');
    const notInstalled = await runInProcess(["list", "npm:@acme/skills"], dir);
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain("npm:@acme/skills: the package is not installed");
    const readOnly = await runInProcess(["copy", "skills", "npm:@acme/skills"], dir);
    expect(readOnly.code).toBe(2);
    expect(readOnly.stderr).toContain("is read-only");
    const empty = await runInProcess(["list", "sqlite::memory:"], dir);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe("No skills found.\n");
  });

  for (const dialect of dialects.filter((d) => d !== "sqlite")) {
    it(`${dialect}: copy and list with a password in the address; the password is never printed (text, --json, errors)`, async () => {
      const server = await createTestDatabase(dialect);
      servers.push(server);
      const dir = await tree(skillsTree());
      // PostgreSQL trusts local connections here, so any password is accepted; MariaDB's root has none.
      const url = new URL(server.url);
      if (dialect === "postgres") url.password = SECRET;
      const address = url.href;
      const outputs: string[] = [];
      const run = async (args: string[]) => {
        const result = await runInProcess(args, dir);
        outputs.push(result.stdout, result.stderr);
        return result;
      };
      expect((await run(["copy", "skills", address, "--json"])).code).toBe(0);
      const list = await run(["list", address, "--json"]);
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout).skills.map((s: { id: string }) => s.id)).toEqual(["alpha", "beta"]);
      await run(["list", address]);
      await run(["validate", address, "--format", "sarif"]);
      const wrong = new URL(server.url);
      wrong.password = SECRET;
      if (dialect === "postgres") wrong.port = "1"; // nothing listens there
      const failed = await run(["list", wrong.href]);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toMatch(/\*\*\*/);
      const failedCopy = await run(["copy", "skills", wrong.href, "--json"]);
      expect(failedCopy.code).toBe(2);
      for (const text of outputs) expect(text).not.toContain(SECRET);
    });
  }
});
