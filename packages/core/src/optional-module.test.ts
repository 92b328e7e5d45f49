// Optional peers (decision 0295): only "the package is not installed" becomes the one-line MissingDependencyError
// with the install command; every other failure keeps its own error.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { MissingDependencyError } from "./errors.js";
import { importOptional, installCommand } from "./optional-module.js";

// A real project folder, imported through Node's own resolver (not the test runner's).
const project = mkdtempSync(path.join(os.tmpdir(), "skillport-optional-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  writeFileSync(path.join(project, file), text);
};
write("node_modules/present/package.json", JSON.stringify({ name: "present", type: "module", exports: "./index.js" }));
write("node_modules/present/index.js", "export const ok = 1;\n");
write("node_modules/broken/package.json", JSON.stringify({ name: "broken", type: "module", exports: "./index.js" }));
write("node_modules/broken/index.js", 'import "its-own-missing-dependency";\n');
write("node_modules/throws/package.json", JSON.stringify({ name: "throws", type: "module", exports: "./index.js" }));
write("node_modules/throws/index.js", 'throw new Error("native binding failed");\n');
write("load.mjs", "export const load = (name) => import(name);\n");
const { load } = (await import(pathToFileURL(path.join(project, "load.mjs")).href)) as {
  load: (name: string) => Promise<unknown>;
};

describe("importOptional", () => {
  it("returns the module when the package is installed", async () => {
    await expect(importOptional("present", "a feature", () => load("present"))).resolves.toMatchObject({ ok: 1 });
  });

  it.each([["absent-driver"], ["absent-driver/sub/path"]])(
    "%s not installed: one line naming the feature and the npm install command",
    async (specifier) => {
      const error = await importOptional("absent-driver", "the SQL source sqlite:x.db", () => load(specifier)).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MissingDependencyError);
      const missing = error as MissingDependencyError;
      expect(missing.message).toBe(
        "the SQL source sqlite:x.db needs the package absent-driver, which is not installed: npm install absent-driver",
      );
      expect([missing.code, missing.packageName, missing.install]).toEqual([
        "MISSING_DEPENDENCY",
        "absent-driver",
        "npm install absent-driver",
      ]);
      expect(missing.message).not.toContain("\n");
    },
  );

  it.each([
    ["an installed package whose own dependency is missing", "broken", /its-own-missing-dependency/],
    ["an installed package that fails to load", "throws", /native binding failed/],
  ])("%s keeps its own error", async (_case, name, message) => {
    const error = await importOptional(name, "a feature", () => load(name)).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(MissingDependencyError);
    expect((error as Error).message).toMatch(message);
  });

  it("a package of a similar name missing is not this package missing", async () => {
    const error = await importOptional("absent", "a feature", () => load("absent-other")).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(MissingDependencyError);
  });

  it.each([
    [
      "a global CLI (POSIX prefix)",
      "/usr/local/lib/node_modules/skillport/dist/cli.js",
      "/usr/local/bin/node",
      "npm install --global pg",
    ],
    [
      "a global CLI (nvm)",
      "/home/u/.nvm/versions/node/v20/lib/node_modules/skillport/dist/cli.js",
      "/home/u/.nvm/versions/node/v20/bin/node",
      "npm install --global pg",
    ],
    [
      "a global CLI (Windows layout)",
      "/opt/node/node_modules/skillport/dist/cli.js",
      "/opt/node/node.exe",
      "npm install --global pg",
    ],
    [
      "a global CLI (Windows paths)",
      "C:/Program Files/nodejs/node_modules/skillport/dist/cli.js",
      "C:\\Program Files\\nodejs\\node.exe",
      "npm install --global pg",
    ],
    ["a project install", "/home/u/app/node_modules/skillport/dist/cli.js", "/usr/local/bin/node", "npm install pg"],
    [
      "a folder merely named like the global one",
      "/usr/local/lib/node_modules-old/skillport/dist/cli.js",
      "/usr/local/bin/node",
      "npm install pg",
    ],
    [
      "a project next to a node binary in bin/",
      "/home/u/app/node_modules/skillport/dist/cli.js",
      "/home/u/app/bin/node",
      "npm install pg",
    ],
  ])("install line for %s", (_case, here, execPath, expected) => {
    expect(installCommand("pg", here, execPath)).toBe(expected);
  });

  it("this module, in the checkout, is no global install", () => {
    expect(installCommand("pg")).toBe("npm install pg");
  });
});
