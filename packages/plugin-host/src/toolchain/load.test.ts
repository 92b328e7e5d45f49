import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { findBubblewrap } from "@skillport/sandbox";
import { bundlePlugin } from "./bundle.js";
import { loadPluginDescription, permissionFlag } from "./load.js";
import { seedToolSet, tempPlugins, writeFiles } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

async function bundled(source: string): Promise<string> {
  const dir = await temp.make({ "index.ts": source });
  const result = await bundlePlugin({ entryDir: dir, entryFile: "index.ts" });
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  await writeFiles(dir, { "index.js": result.code });
  return join(dir, "index.js");
}

describe("loadPluginDescription", () => {
  it("describes a tool set; whatever the plugin prints does not corrupt the answer", async () => {
    const bundle = await bundled(`console.log("{not json"); process.stdout.write("noise");\n${seedToolSet}`);
    const loaded = await loadPluginDescription(bundle);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.description.kind).toBe("toolSet");
    expect(loaded.description.children.map((c) => c.id)).toEqual(["search"]);
    expect(loaded.description.problems).toEqual([]);
  });

  it("gives the plugin an empty environment", async () => {
    const bundle = await bundled(
      `if (Object.keys(process.env).length > 0) throw new Error("env leaked: " + Object.keys(process.env).join(","));\n${seedToolSet}`,
    );
    expect((await loadPluginDescription(bundle)).ok).toBe(true);
  });

  it("replaces host paths in messages", async () => {
    const bundle = await bundled(`throw new Error("at " + import.meta.url);`);
    const loaded = await loadPluginDescription(bundle, { redact: [[bundle, "index.js"]] });
    expect(loaded).toEqual({
      ok: false,
      code: "PLUGIN_LOAD_FAILED",
      message: "loading the bundle failed: at index.js",
    });
  });
});

const bwrap = await findBubblewrap();
if (!bwrap) {
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
    throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set) but does not work here");
  console.log("skipping the build-time network isolation test: bwrap is not installed or cannot create namespaces");
}

describe.runIf(bwrap)("loadPluginDescription: top-level code and the network (bubblewrap)", () => {
  let server: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const phoneHome = () =>
    bundled(`import { connect } from "node:net";
await new Promise((resolve, reject) => {
  const socket = connect({ host: "127.0.0.1", port: ${port} });
  socket.on("connect", () => { socket.end(); resolve(undefined); });
  socket.on("error", (error) => reject(new Error("phone home failed: " + error.code)));
});
${seedToolSet}`);

  it("cannot connect anywhere while the build reads the definition", async () => {
    const loaded = await loadPluginDescription(await phoneHome());
    expect(loaded).toMatchObject({ ok: false, code: "PLUGIN_LOAD_FAILED" });
    expect(loaded.ok ? "" : loaded.message).toMatch(
      /^loading the bundle failed: phone home failed: (ENETUNREACH|ECONNREFUSED)$/,
    );
    expect(connections).toBe(0);
  });

  it("connects with isolateNetwork off (the permission model alone has no network switch)", async () => {
    const loaded = await loadPluginDescription(await phoneHome(), { isolateNetwork: "off" });
    expect(loaded.ok).toBe(true);
    expect(connections).toBe(1);
  });
});

describe("permissionFlag", () => {
  it.each([
    ["20.19.0", "--experimental-permission"],
    ["22.12.0", "--experimental-permission"],
    ["22.13.0", "--permission"],
    ["24.1.0", "--permission"],
  ])("node %s uses %s", (version, flag) => {
    expect(permissionFlag(version)).toBe(flag);
  });
});
