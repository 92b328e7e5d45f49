import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { PLUGIN_ID_PATTERN, parsePluginManifest } from "./manifest.js";

const valid = {
  pluginId: "my-tool_2",
  version: "1.2.3",
  name: { en: "Tool", "zh-CN": "工具" },
  description: { en: "Does things", "zh-CN": "做事" },
};

const issues = (value: unknown) => {
  const result = parsePluginManifest(value);
  return result.ok ? [] : result.issues;
};

describe("parsePluginManifest", () => {
  it("accepts a minimal manifest and every optional field", () => {
    expect(issues(valid)).toEqual([]);
    expect(
      issues({
        ...valid,
        versionDescription: { en: "First", "zh-CN": "首版", "zh-Hant": "首版" },
        author: "me",
        repoUrl: "https://example.com/repo",
        tutorialUrl: "http://example.com/tut",
        tags: ["tools", "search"],
        permission: ["userInfo:read", "teamInfo:read", "model:read", "dataset:read", "file-upload:allow"],
        icon: "logo.svg",
        toolDescription: "for the model",
      }),
    ).toEqual([]);
  });

  it.each([
    ["missing pluginId", { ...valid, pluginId: undefined }, "manifest.pluginId", "is required"],
    ["pluginId with a space", { ...valid, pluginId: "my tool" }, "manifest.pluginId", "must use letters, digits"],
    ["pluginId with a slash", { ...valid, pluginId: "a/b" }, "manifest.pluginId", "must use letters, digits"],
    ["pluginId starting with '-'", { ...valid, pluginId: "-x" }, "manifest.pluginId", "must use letters, digits"],
    ["empty version", { ...valid, version: "" }, "manifest.version", "must not be empty"],
    ["version with a slash", { ...valid, version: "1/0" }, "manifest.version", "must use letters, digits"],
    ["name without zh-CN", { ...valid, name: { en: "Tool" } }, "manifest.name.zh-CN", "is required"],
    [
      "description without en",
      { ...valid, description: { "zh-CN": "做事" } },
      "manifest.description.en",
      "is required",
    ],
    ["blank en", { ...valid, name: { en: " ", "zh-CN": "工具" } }, "manifest.name.en", "must not be empty"],
    [
      "versionDescription without zh-CN",
      { ...valid, versionDescription: { en: "x" } },
      "manifest.versionDescription.zh-CN",
      "is required",
    ],
    [
      "unknown permission",
      { ...valid, permission: ["userInfo:read", "files:write"] },
      "manifest.permission[1]",
      "must be one of",
    ],
    [
      "duplicate permission",
      { ...valid, permission: ["model:read", "model:read"] },
      "manifest.permission[1]",
      "duplicate permission",
    ],
    ["unknown tag", { ...valid, tags: ["fun"] }, "manifest.tags[0]", "must be one of"],
    ["tutorialUrl not a URL", { ...valid, tutorialUrl: "see docs" }, "manifest.tutorialUrl", "http(s) URL"],
    [
      "repoUrl with a javascript: scheme",
      { ...valid, repoUrl: "javascript:alert(1)" },
      "manifest.repoUrl",
      "http(s) URL",
    ],
  ])("rejects %s", (_label, manifest, path, message) => {
    const found = issues(manifest);
    expect(found.map((i) => i.path)).toEqual([path]);
    expect(found[0]?.message).toContain(message);
  });

  it("names the root when the manifest is not an object", () => {
    expect(issues(null).map((i) => i.path)).toEqual(["manifest"]);
  });

  it.each([["getTime"], ["DingTalkWebhook"], ["jsonProcessor"], ["my-tool_2"]])(
    "accepts FastGPT's case-preserving pluginId %s",
    (pluginId) => {
      const result = parsePluginManifest({ ...valid, pluginId });
      expect(result.ok && result.manifest.pluginId).toBe(pluginId);
    },
  );

  it.each([["1.0"], ["01.0.0"], ["1.2.3-beta.1"], ["2024.10.1"]])(
    "accepts the version %s as upstream does (SemVer is a check warning)",
    (version) => {
      expect(issues({ ...valid, version })).toEqual([]);
    },
  );

  it("pluginId rule: accepted ids are exactly letters, digits, '-' and '_' starting alphanumerically", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (id) => {
        const ok = issues({ ...valid, pluginId: id }).length === 0;
        expect(ok).toBe(id.length > 0 && /^[A-Za-z0-9]/.test(id) && [...id].every((ch) => /[A-Za-z0-9_-]/.test(ch)));
        expect(ok).toBe(PLUGIN_ID_PATTERN.test(id));
      }),
    );
  });

  it("semver: every x.y.z of non-negative integers is accepted", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), (a, b, c) => {
        expect(issues({ ...valid, version: `${a}.${b}.${c}` })).toEqual([]);
      }),
    );
  });
});

describe("parsePluginManifest never throws", () => {
  it("returns issues with string paths for any input", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = parsePluginManifest(value);
        if (!result.ok) for (const issue of result.issues) expect(issue.path.startsWith("manifest")).toBe(true);
      }),
    );
  });
});
