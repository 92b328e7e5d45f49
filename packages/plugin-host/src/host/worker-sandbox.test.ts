// Plugin workers never run as host root (issue 8, hole 1): with bubblewrap and without it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { PluginHost } from "./index.js";
import { writePluginFixture } from "./__fixtures__/plugins.js";

const bwrap = findBubblewrap();
if (!bwrap) {
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
    throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set) but does not work here");
  console.log("skipping the bubblewrap worker case: bwrap is not installed or cannot create namespaces");
}

// Reports who the worker is: uid, gid, and its capability sets (Node may read /proc/self/status only inside bwrap,
// where the permission model's grants are all it can read anyway, so the handler asks for uid/gid via process).
const WHOAMI_SOURCE = `
import { createToolHandler, defineTool } from "@skillport/plugin";
import { z } from "zod";

export default defineTool({
  manifest: {
    pluginId: "whoami",
    version: "1.0.0",
    name: { en: "Who am I", "zh-CN": "我是谁" },
    description: { en: "Reports its identity", "zh-CN": "报告身份" },
  },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() }),
    handler: async () => ({ text: JSON.stringify({ uid: process.getuid(), gid: process.getgid(), groups: process.getgroups() }) }),
  }),
});
`;

let root: string;
let dist: string;
const hosts: PluginHost[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skillport-worker-sandbox-"));
  dist = await writePluginFixture(join(root, "whoami"), { source: WHOAMI_SOURCE, pluginId: "whoami" });
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await rm(root, { recursive: true, force: true });
});

const modes: Array<"auto" | "off"> = bwrap ? ["auto", "off"] : ["off"];

describe.each(modes)("plugin worker (bubblewrap %s)", (mode) => {
  it("runs as a non-root uid and gid, with no root group", async () => {
    const host = await PluginHost.load(dist, { bubblewrap: mode, maxHeapMb: 64 });
    hosts.push(host);
    expect(host.status.bubblewrap).toBe(mode === "auto");
    const { output } = await host.invoke("tool", { text: "x" });
    const who = JSON.parse((output as { text: string }).text) as { uid: number; gid: number; groups: number[] };
    expect(who.uid).not.toBe(0);
    expect(who.gid).not.toBe(0);
    expect(who.groups).not.toContain(0);
  });
});
