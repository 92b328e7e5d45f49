// Issue 19: a deploy state folder planted by another uid was adopted — chmod 0700, owner still nobody — and root then
// wrote manifests and staging through its `versions` / `staging` links. The state folder and those sub-folders must
// now be this user's own real folders (opened without following links); anything else is refused with one line and
// nothing is written anywhere. Before the fix the first case wrote `versions/<id>.json` into the outside folder.
import { describe, expect, it } from "vitest";
import { existsSync, statSync } from "node:fs";
import { chmod, chown, mkdir, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { Workspace } from "./workspace.js";
import { useTempDirs, writePackage } from "./__fixtures__/helpers.js";

const hostIsRoot = process.getuid?.() === 0;
if (!hostIsRoot)
  console.warn("host is not root: a state folder of another user cannot be planted; those cases are skipped");

const { tmp, defer } = useTempDirs();

/** A shared parent (like /tmp: anyone may create entries) holding the workspace and, by default, its state folder. */
async function sharedParent(): Promise<{ parent: string; root: string; outside: string; pkg: string }> {
  const parent = await tmp();
  await chmod(parent, 0o1777);
  const root = path.join(parent, "ws");
  await mkdir(root);
  const outside = path.join(await tmp(), "outside");
  await mkdir(outside, { recursive: true });
  await chmod(outside, 0o777);
  return { parent, root, outside, pkg: await writePackage(await tmp(), { files: { "tag.txt": "x" } }) };
}

async function deployInto(root: string, pkg: string, stateDir?: string): Promise<unknown> {
  const ws = new Workspace(root, { sandbox: "process", stateDir });
  defer(() => ws.close());
  try {
    const result = await ws.deploy([pkg]);
    await result.initialization;
    return result;
  } catch (error) {
    return error;
  }
}

describe.runIf(hostIsRoot)("a state folder planted by another user", () => {
  it.each(["versions", "staging"])("is refused, not adopted: nothing is written through its %s link", async (link) => {
    const { parent, root, outside, pkg } = await sharedParent();
    // The default state folder's name, made first by uid 65534 with a link to a folder of its choice.
    const planted = path.join(parent, ".ws.skillport-state");
    await mkdir(planted, { mode: 0o777 });
    await chmod(planted, 0o777);
    await symlink(outside, path.join(planted, link));
    await chown(planted, 65534, 65534);
    const error = await deployInto(root, pkg);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/the state folder belongs to uid 65534, not to this user \(uid 0\)/);
    expect(await readdir(outside)).toEqual([]);
    expect(statSync(planted).mode & 0o777).toBe(0o777); // left as found
    expect(await readdir(path.join(root))).toEqual([]);
  });
});

describe("the state folder's own sub-folders", () => {
  it.each(["versions", "staging"])("a %s link in a state folder of ours is refused, never followed", async (link) => {
    const { root, outside, pkg } = await sharedParent();
    const state = path.join(await tmp(), "state");
    await mkdir(state, { mode: 0o700 });
    await symlink(outside, path.join(state, link));
    const error = await deployInto(root, pkg, state);
    expect((error as Error).message).toMatch(
      new RegExp(`the state folder's ${link} is a symbolic link or not a folder`),
    );
    expect(await readdir(outside)).toEqual([]);
  });

  it("a state folder of ours that others may enter is closed to them (0700) and used", async () => {
    const { root, pkg } = await sharedParent();
    const state = path.join(await tmp(), "state");
    await mkdir(state);
    await chmod(state, 0o755);
    const result = await deployInto(root, pkg, state);
    expect(result).not.toBeInstanceOf(Error);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(state, "versions"))).toBe(true);
  });
});
