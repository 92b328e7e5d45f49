import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lstat, mkdtemp, readdir, readFile, realpath, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  AgentSkillsError,
  RESOURCE_KINDS,
  ResourceNotFoundError,
  SkillNotFoundError,
  parseSkillMd,
  requireSafeSkillId,
  toSkillProvider,
  type Frontmatter,
  type ResourceListing,
  type SkillFile,
  type SkillProvider,
} from "@skillport/core";
import { resourceKindPath } from "@skillport/core/internal";
import { isInside, resolveConfined } from "@skillport/fs";
import { CONFINEMENT_SIBLING_CONTENT, runConformance, writeConformanceFixture } from "./index.js";

/**
 * A deliberately small filesystem provider, only to exercise the kit's filesystem cases on a real disk.
 * `followLinks: true` turns it into the broken variant that serves whatever a link points at; `confineToRoot: true`
 * into the Python reference provider's known weakness: reads are confined to the provider ROOT, not to the skill.
 */
class MiniFsProvider implements SkillProvider {
  readonly name = "mini-fs";
  constructor(
    private readonly root: string,
    private readonly options: {
      followLinks?: boolean;
      confineToRoot?: boolean;
      refuseAllLinks?: boolean;
      maxFileBytes?: number;
    } = {},
  ) {}

  async discover(): Promise<string[]> {
    const out: string[] = [];
    for (const entry of await readdir(this.root, { withFileTypes: true })) {
      if (
        entry.isDirectory() &&
        !entry.name.startsWith(".") &&
        (await this.#isFile(path.join(this.root, entry.name, "SKILL.md")))
      )
        out.push(entry.name);
    }
    return out.sort();
  }
  async getMetadata(id: string): Promise<Frontmatter> {
    return (await this.#parsed(id)).frontmatter ?? {};
  }
  async getBody(id: string): Promise<string> {
    return (await this.#parsed(id)).body;
  }
  getReference(id: string, name: string) {
    return this.#read(id, this.#kindPath(id, "references", name));
  }
  getScript(id: string, name: string) {
    return this.#read(id, this.#kindPath(id, "scripts", name));
  }
  getAsset(id: string, name: string) {
    return this.#read(id, this.#kindPath(id, "assets", name));
  }
  async listResources(id: string): Promise<ResourceListing> {
    const listing: ResourceListing = { references: [], scripts: [], assets: [] };
    for (const file of await this.listFiles(id)) {
      const [kind, name, ...rest] = file.path.split("/");
      if (
        rest.length === 0 &&
        name !== undefined &&
        !name.startsWith(".") &&
        (RESOURCE_KINDS as readonly string[]).includes(kind ?? "")
      ) {
        listing[kind as (typeof RESOURCE_KINDS)[number]].push(name);
      }
    }
    return listing;
  }
  async listFiles(id: string): Promise<SkillFile[]> {
    const dir = await this.#skillDir(id);
    const files: SkillFile[] = [];
    const walk = async (rel: string): Promise<void> => {
      for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
        const child = rel === "" ? e.name : `${rel}/${e.name}`;
        if (e.isSymbolicLink() && this.options.refuseAllLinks)
          throw new AgentSkillsError(`skill ${id}: ${child} is a link`);
        if (e.isSymbolicLink() && !this.options.followLinks) {
          // The one link rule: a link that stays inside the skill is part of it; anything else is refused.
          const target = await realpath(path.join(dir, child)).catch(() => undefined);
          if (target === undefined || !isInside(await realpath(dir), target))
            throw new AgentSkillsError(`skill ${id}: ${child} is a link leaving the skill`);
        }
        const st = await stat(path.join(dir, child));
        if (st.isDirectory()) await walk(child);
        else files.push({ path: child, size: st.size });
      }
    };
    await walk("");
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  async readFile(id: string, rel: string): Promise<Uint8Array> {
    return this.#read(id, rel);
  }
  // The whole-skill reads derived by core's adapter from the methods above (they never call back into these two).
  getSkill(id: string) {
    return toSkillProvider(this).getSkill(id);
  }
  getAllSkills() {
    return toSkillProvider(this).getAllSkills();
  }

  #kindPath(id: string, kind: "references" | "scripts" | "assets", name: string): string {
    return this.options.confineToRoot ? `${kind}/${name}` : resourceKindPath(id, kind, name);
  }
  async #skillDir(id: string): Promise<string> {
    const dir = path.join(this.root, requireSafeSkillId(id));
    if (!(await this.#isFile(path.join(dir, "SKILL.md")))) throw new SkillNotFoundError(id);
    return dir;
  }
  async #parsed(id: string) {
    const bytes = await this.#read(id, "SKILL.md").catch((e: unknown) => {
      throw e instanceof ResourceNotFoundError ? new SkillNotFoundError(id) : e;
    });
    return parseSkillMd(bytes);
  }
  async #read(id: string, rel: string): Promise<Uint8Array> {
    const dir = await this.#skillDir(id);
    let file: string;
    if (this.options.followLinks) file = path.join(dir, rel);
    else if (this.options.confineToRoot) {
      file = path.resolve(dir, rel);
      const real = await realpath(file).catch(() => undefined);
      if (rel.includes("\0") || real === undefined || !isInside(await realpath(this.root), real))
        throw new ResourceNotFoundError(id, rel);
    } else {
      try {
        file = await resolveConfined(dir, rel, { skillId: id });
      } catch (e) {
        throw e instanceof ResourceNotFoundError ? e : new ResourceNotFoundError(id, rel, undefined, { cause: e });
      }
      if (!isInside(await realpath(dir), file)) throw new ResourceNotFoundError(id, rel);
    }
    const st = await lstat(file).catch(() => undefined);
    if (!st || !(this.options.followLinks || st.isFile() || (st.isSymbolicLink() && (await stat(file)).isFile())))
      throw new ResourceNotFoundError(id, rel);
    if (st.size > (this.options.maxFileBytes ?? Infinity))
      throw new AgentSkillsError(`skill ${id}: ${rel} is too large`);
    return new Uint8Array(await readFile(file));
  }
  async #isFile(p: string): Promise<boolean> {
    return (await lstat(p).catch(() => undefined))?.isFile() ?? false;
  }
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "skillport-kit-fs-"));
  await writeConformanceFixture(root);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the kit on a real filesystem", () => {
  it("writes the exact fixture files", async () => {
    const skill = path.join(root, "conformance-skill");
    expect(await readFile(path.join(skill, "references", "notes.md"), "utf8")).toBe(
      "# Notes\n\nA reference document.\n",
    );
    expect(await readFile(path.join(skill, "scripts", "run.sh"), "utf8")).toBe("#!/bin/sh\necho conformance\n");
    expect(await readFile(path.join(skill, "assets", "diagram.svg"), "utf8")).toBe("<svg></svg>\n");
    expect((await readdir(root)).sort()).toEqual(["conformance-skill", "other"]);
  });

  it("a confined filesystem provider passes every case, symlink cases included", async () => {
    const report = await runConformance(() => new MiniFsProvider(root), {
      filesystem: { root },
      contentLimit: { makeProvider: () => new MiniFsProvider(root, { maxFileBytes: 4 }) },
    });
    expect(report.failed).toEqual([]);
    expect(report.passed).toHaveLength(48 + 4 + 7 + 4 + 5);
  });

  it("a provider that refuses every link fails the in-skill link case (one link rule for every method)", async () => {
    const report = await runConformance(() => new MiniFsProvider(root, { refuseAllLinks: true }), {
      filesystem: { root },
    });
    expect(report.failed.map((f) => f.id)).toEqual(["fs.symlink.inside-skill"]);
  });

  it("a provider that follows links out of the skill fails the symlink and readFile confinement cases", async () => {
    const report = await runConformance(() => new MiniFsProvider(root, { followLinks: true }), {
      filesystem: { root },
    });
    expect(report.failed.map((f) => f.id).sort()).toEqual(
      [
        "confine.read-file.provider-root",
        "confine.read-file.sibling",
        "fs.symlink.dangling",
        "fs.symlink.dir-to-sibling",
        "fs.symlink.file-outside-root",
        "fs.symlink.file-to-sibling",
      ].sort(),
    );
    // the links are gone again: the fixture is left as it was
    expect((await readdir(path.join(root, "conformance-skill", "references"))).sort()).toEqual(["notes.md"]);
  });

  it("a provider confined only to its root (the reference provider's weakness) fails every confinement case that reaches a real file", async () => {
    const report = await runConformance(() => new MiniFsProvider(root, { confineToRoot: true }), {
      filesystem: { root },
    });
    expect(report.failed.map((f) => f.id).sort()).toEqual(
      [
        "confine.assets.sibling",
        "confine.read-file.sibling",
        "confine.references.sibling",
        "confine.references.skill-md",
        "confine.scripts.cross-kind",
        // links to a sibling stay inside the root, so a root-confined provider serves them
        "fs.symlink.dir-to-sibling",
        "fs.symlink.file-to-sibling",
      ].sort(),
    );
    const sibling = report.failed.find((f) => f.id === "confine.references.sibling");
    expect(sibling?.error).toBe(
      `getReference("conformance-skill", "../../other/references/x.md"): expected ResourceNotFoundError, but it returned ${Buffer.byteLength(CONFINEMENT_SIBLING_CONTENT)} bytes`,
    );
  });
});
