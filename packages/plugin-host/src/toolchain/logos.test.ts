import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { join } from "node:path";
import { classifyLogoName, scanLogos } from "./logos.js";
import { LOGO, tempPlugins } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

const withFiles = (names: string[]) => Object.fromEntries(names.map((n) => [n, LOGO]));

describe("logo rules", () => {
  it.each<[string, string[], string[], string | undefined, Record<string, string>, string[]]>([
    // label, files, child ids, expected main, expected child logos, expected error codes
    ["main logo only", ["logo.svg"], ["search"], "logo.svg", {}, []],
    ["each allowed extension: png", ["logo.png"], [], "logo.png", {}, []],
    ["each allowed extension: jpg", ["logo.jpg"], [], "logo.jpg", {}, []],
    ["each allowed extension: jpeg", ["logo.jpeg"], [], "logo.jpeg", {}, []],
    ["each allowed extension: webp", ["logo.webp"], [], "logo.webp", {}, []],
    ["each allowed extension: gif", ["logo.gif"], [], "logo.gif", {}, []],
    [
      "child logo for an exact id",
      ["logo.svg", "search.logo.png"],
      ["search", "list"],
      "logo.svg",
      { search: "search.logo.png" },
      [],
    ],
    [
      "missing main logo",
      ["search.logo.svg"],
      ["search"],
      undefined,
      { search: "search.logo.svg" },
      ["PLUGIN_LOGO_MISSING"],
    ],
    ["no logo at all", ["README.md"], [], undefined, {}, ["PLUGIN_LOGO_MISSING"]],
    ["two main logos", ["logo.png", "logo.svg"], [], undefined, {}, ["PLUGIN_LOGO_AMBIGUOUS"]],
    [
      "two logos for one child",
      ["logo.svg", "search.logo.png", "search.logo.svg"],
      ["search"],
      "logo.svg",
      {},
      ["PLUGIN_LOGO_AMBIGUOUS"],
    ],
    ["unsupported extension", ["logo.svg", "search.logo.bmp"], ["search"], "logo.svg", {}, ["PLUGIN_LOGO_EXTENSION"]],
    ["upper-case extension", ["logo.PNG"], [], undefined, {}, ["PLUGIN_LOGO_EXTENSION", "PLUGIN_LOGO_MISSING"]],
    [
      "child id differs in case",
      ["logo.svg", "Search.logo.svg"],
      ["search"],
      "logo.svg",
      {},
      ["PLUGIN_LOGO_UNKNOWN_CHILD"],
    ],
    [
      "child id that does not exist",
      ["logo.svg", "lookup.logo.svg"],
      ["search"],
      "logo.svg",
      {},
      ["PLUGIN_LOGO_UNKNOWN_CHILD"],
    ],
    ["child logo on a single tool", ["logo.svg", "tool.logo.svg"], [], "logo.svg", {}, ["PLUGIN_LOGO_UNKNOWN_CHILD"]],
    ["space in the name", ["logo.svg", "my search.logo.svg"], ["my search"], "logo.svg", {}, ["PLUGIN_LOGO_NAME"]],
    ["Chinese in the name", ["logo.svg", "搜索.logo.svg"], ["搜索"], "logo.svg", {}, ["PLUGIN_LOGO_NAME"]],
    [
      "special character in the name",
      ["logo.svg", "search@.logo.svg"],
      ["search@"],
      "logo.svg",
      {},
      ["PLUGIN_LOGO_NAME"],
    ],
    ["'Logo' capitalised", ["Logo.svg"], [], undefined, {}, ["PLUGIN_LOGO_NAME", "PLUGIN_LOGO_MISSING"]],
    ["logo under assets/", ["logo.svg", "assets/logo.png"], [], "logo.svg", {}, ["PLUGIN_LOGO_IN_ASSETS"]],
    [
      "child logo deep under assets/",
      ["logo.svg", "assets/img/search.logo.svg"],
      ["search"],
      "logo.svg",
      {},
      ["PLUGIN_LOGO_IN_ASSETS"],
    ],
    ["other assets are fine", ["logo.svg", "assets/catalog.png", "assets/logos.txt"], [], "logo.svg", {}, []],
  ])("%s", async (_label, files, childIds, main, children, codes) => {
    const dir = await temp.make(withFiles(files));
    const scan = await scanLogos(dir, childIds);
    expect(scan.main).toBe(main);
    expect(Object.fromEntries(scan.children)).toEqual(children);
    expect(scan.diagnostics.map((d) => d.code)).toEqual(codes);
    expect(scan.diagnostics.every((d) => d.severity === "error")).toBe(true);
  });

  it("a logo name that is a directory or a link is not a logo file", async () => {
    const dir = await temp.make({ "logo.svg/inner.txt": "x", "real.svg": LOGO });
    const { symlink } = await import("node:fs/promises");
    await symlink(join(dir, "real.svg"), join(dir, "search.logo.svg"));
    const scan = await scanLogos(dir, ["search"]);
    expect(scan.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["PLUGIN_LOGO_NOT_FILE", "logo.svg"],
      ["PLUGIN_LOGO_NOT_FILE", "search.logo.svg"],
      ["PLUGIN_LOGO_MISSING", undefined],
    ]);
    expect(scan.main).toBeUndefined();
  });

  it("names the files involved, never absolute paths", async () => {
    const dir = await temp.make(withFiles(["logo.png", "logo.svg"]));
    const [diagnostic] = (await scanLogos(dir, [])).diagnostics;
    expect(diagnostic?.message).toBe("more than one main logo (logo.png, logo.svg); keep exactly one");
    expect(diagnostic?.message).not.toContain(dir);
  });
});

describe("classifyLogoName (property)", () => {
  const accepted = /^(?:([A-Za-z0-9._-]+)\.)?logo\.(?:svg|png|jpg|jpeg|webp|gif)$/;
  const nameChars = fc.constantFrom(..."abcXYZ019._- 搜@logLOGO".split(""));
  const names = fc.oneof(
    fc
      .string({ unit: nameChars, maxLength: 12 })
      .map((s) => `${s}.logo.${["svg", "png", "bmp", "PNG", "gif"][s.length % 5]}`),
    fc.string({ unit: nameChars, maxLength: 16 }),
    fc.constantFrom("logo.svg", "logo.jpeg", "Logo.svg", "logo.", "logo.svg.bak", "catalog.svg"),
  );

  it("accepts exactly the safe names with an allowed extension and a known child", () => {
    fc.assert(
      fc.property(
        names,
        fc.array(fc.constantFrom<string>("search", "a.b", "x-1"), { maxLength: 3 }),
        (name, childIds) => {
          const verdict = classifyLogoName(name, childIds);
          const match = accepted.exec(name);
          const ok = verdict.kind === "main" || verdict.kind === "child";
          expect(ok).toBe(match !== null && (match[1] === undefined || childIds.includes(match[1])));
          if (verdict.kind === "child") expect(verdict.childId).toBe(match?.[1]);
          if (verdict.kind === "none") expect(/(?:^|\.)logo\.[^.]*$/i.test(name)).toBe(false);
        },
      ),
    );
  });
});
