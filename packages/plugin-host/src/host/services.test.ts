import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PluginPermission } from "@skillport/plugin";
import {
  createLocalServices,
  DEFAULT_INVOKE_LIMITS,
  dispatchInvoke,
  safeFileName,
  type HostServices,
} from "./services.js";
import type { InvokeMethod } from "./protocol.js";

const call = {
  pluginId: "p",
  version: "1.0.0",
  toolId: "tool",
  systemVar: { app: { id: "a", name: "a" }, chat: { chatId: "c" }, invokeToken: "t", time: "now" },
};
const ALL: PluginPermission[] = ["userInfo:read", "teamInfo:read", "model:read", "dataset:read", "file-upload:allow"];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillport-services-test-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const run = (
  method: InvokeMethod,
  args: unknown,
  services: HostServices,
  permissions: PluginPermission[] = ALL,
  maxUploadBytes = DEFAULT_INVOKE_LIMITS.maxUploadBytes,
) => dispatchInvoke(method, args, { permissions, services, call, limits: { maxUploadBytes } });

describe("dispatchInvoke", () => {
  it.each([
    ["userInfo", "userInfo:read"],
    ["teamInfo", "teamInfo:read"],
    ["model", "model:read"],
    ["dataset", "dataset:read"],
    ["uploadFile", "file-upload:allow"],
  ] as const)("%s needs %s", async (method, permission) => {
    const [result, failure] = await run(
      method,
      {},
      {},
      ALL.filter((p) => p !== permission),
    );
    expect(result).toBeNull();
    expect(failure).toMatchObject({ error: "PermissionDenied", data: { permission } });
    expect(failure?.reason.en).toContain(`"${permission}"`);
    expect(failure?.reason["zh-CN"]).toContain(`"${permission}"`);
  });

  it("answers NotConfigured for a service the application did not supply", async () => {
    const [, failure] = await run("model", { messages: [{ role: "user", content: "hi" }] }, createLocalServices());
    expect(failure).toEqual({
      reason: { en: "ctx.invoke.model is not configured on this host", "zh-CN": "宿主未配置 ctx.invoke.model" },
      error: "NotConfigured",
      message: "ctx.invoke.model is not configured on this host",
    });
  });

  it("checks arguments before calling the application", async () => {
    let called = false;
    const [, failure] = await run(
      "dataset",
      { datasetIds: [], query: "q" },
      { dataset: () => ((called = true), { items: [] }) },
    );
    expect(called).toBe(false);
    expect(failure).toMatchObject({
      error: "InvalidArgument",
      message: expect.stringContaining("ctx.invoke.dataset: invalid arguments (datasetIds)"),
    });
  });

  it("turns a throwing service into a ServiceError failure", async () => {
    const [, failure] = await run("teamInfo", undefined, {
      teamInfo: () => {
        throw new Error("db down");
      },
    });
    expect(failure).toMatchObject({ error: "ServiceError", message: "ctx.invoke.teamInfo failed: db down" });
  });

  it("passes results from configured user and team info", async () => {
    const user = { username: "ada", orgs: [{ pathId: "o1", name: "Org" }], groups: [{ name: "g" }] };
    expect(await run("userInfo", undefined, createLocalServices({ user }))).toEqual([user, null]);
  });

  it("refuses uploads over the size limit", async () => {
    const [, failure] = await run("uploadFile", { file: "12345" }, createLocalServices({ uploadDir: dir }), ALL, 4);
    expect(failure).toMatchObject({
      error: "UploadTooLarge",
      message: "ctx.invoke.uploadFile: the file is 5 bytes, over the host's limit of 4",
    });
  });

  it("stores uploads by content hash with a sanitised name", async () => {
    const [result] = await run(
      "uploadFile",
      { fileName: "../../etc/x y.txt", file: new Uint8Array([104, 105]) },
      createLocalServices({ uploadDir: dir }),
    );
    const etag = "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4";
    expect(result).toEqual({
      accessURL: expect.stringMatching(/\/x_y\.txt$/),
      fileName: "x_y.txt",
      contentType: "application/octet-stream",
      size: 2,
      etag,
      createTime: expect.any(Date),
    });
    const path = fileURLToPath((result as { accessURL: string }).accessURL);
    expect(path).toBe(join(dir, etag.slice(0, 16), "x_y.txt"));
    expect(await readFile(path, "utf8")).toBe("hi");
  });
});

describe("safeFileName", () => {
  it.each([
    ["report.pdf", "report.pdf"],
    ["../../passwd", "passwd"],
    ["a\\b\\c.txt", "c.txt"],
    ["..", "file"],
    [".hidden", "hidden"],
    ["报告.txt", "__.txt"],
    [undefined, "file"],
  ])("%j → %j", (input, expected) => {
    expect(safeFileName(input)).toBe(expected);
  });
});
