// Entrypoints and agent commands never run as host root (issue 8, hole 1), and what the host keeps in the workspace
// stays the host's: sandboxed code can write the workspace and its own version, not move host folders.
import { describe, expect, it } from "vitest";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { Workspace } from "./workspace.js";
import { haveBubblewrap, useTempDirs, writePackage } from "./__fixtures__/helpers.js";

const kinds: Array<"bubblewrap" | "process"> = haveBubblewrap(console.warn) ? ["bubblewrap", "process"] : ["process"];
const hostIsRoot = process.getuid?.() === 0;
const { tmp, defer } = useTempDirs();

describe.each(kinds)("workspace on %s", (sandbox) => {
  it("runs entrypoints and commands as a non-root uid that owns its version folder", async () => {
    const ws = new Workspace(await tmp(), { sandbox });
    defer(() => ws.close());
    const source = await writePackage(await tmp(), {
      entrypoint: "id -u > .uid && mkdir -p .runtime && echo ready > .runtime/ready",
    });
    const deploy = await ws.deploy([source]);
    const report = await deploy.initialization;
    expect(report.failed).toBe(false);
    const version = path.join(ws.projectsDir, deploy.versions[0]!.versionId);
    expect(Number(await readFile(path.join(version, ".uid"), "utf8"))).not.toBe(0);
    expect(await readFile(path.join(version, ".runtime/ready"), "utf8")).toBe("ready\n");
    const exec = await ws.exec("id -u; touch made-by-agent && echo ok");
    const [uid, ok] = exec.observation.trim().split("\n");
    expect(Number(uid)).not.toBe(0);
    expect(ok).toBe("ok");
    if (hostIsRoot) expect((await stat(path.join(ws.root, "made-by-agent"))).uid).toBe(Number(uid));
  });

  it.runIf(hostIsRoot)("cannot move or replace the folders the host keeps in the workspace", async () => {
    const ws = new Workspace(await tmp(), { sandbox });
    defer(() => ws.close());
    await ws.deploy([await writePackage(await tmp(), {})]);
    await ws.exec("true"); // the host creates .skillport/outputs
    const before = (await readdir(ws.root)).sort();
    expect(before).toEqual([".home", ".skillport", "projects"]);
    const r = await ws.exec(
      "mv projects p2; mv .skillport s2; rm -rf projects; ln -s / projects/evil; mkdir projects/.tmp-1-planted; echo done",
    );
    expect(r.observation).toContain("done");
    expect((await readdir(ws.root)).sort()).toEqual(before);
    expect((await readdir(ws.projectsDir)).filter((n) => !/^[a-f0-9]{24}$/.test(n))).toEqual([]);
  });
});
