import { check, deepEqual, describeValue, expectError } from "../check.js";
import { FIXTURE_RESOURCES, MISSING_RESOURCE_NAME, MISSING_SKILL_ID } from "../fixture.js";
import { encoder, FILE_ACCESS_NOT_SUPPORTED, id, KINDS, RESOURCE_NOT_FOUND, SKILL_NOT_FOUND, show } from "./shared.js";
import type { ConformanceCase, ConformanceOptions } from "./types.js";

/** Whole-file access: listFiles and readFile agree with the fixture. */
export function fileCases(options: ConformanceOptions): ConformanceCase[] {
  const supported = options.supportsFileAccess ?? true;
  const expectedPaths = ["SKILL.md", ...KINDS.map((k) => `${k}/${FIXTURE_RESOURCES[k].name}`)].sort();
  if (!supported) {
    return [
      {
        id: "files.unsupported",
        title: "listFiles and readFile raise FileAccessNotSupportedError",
        suite: "files",
        run: async ({ provider }) => {
          await expectError("listFiles (declared unsupported)", () => provider.listFiles(id), [FILE_ACCESS_NOT_SUPPORTED]);
          await expectError("readFile (declared unsupported)", () => provider.readFile(id, "SKILL.md"), [FILE_ACCESS_NOT_SUPPORTED]);
        },
      },
    ];
  }
  return [
    {
      id: "files.list",
      title: "listFiles lists SKILL.md and the three resources, sorted, with sizes",
      suite: "files",
      run: async ({ provider }) => {
        const files = await provider.listFiles(id);
        check(Array.isArray(files), `listFiles returned ${describeValue(files)}`);
        const paths = files.map((f) => f.path);
        check(deepEqual(paths, expectedPaths), `listFiles paths are ${describeValue(paths)}, expected ${describeValue(expectedPaths)}`);
        for (const kind of KINDS) {
          const file = files.find((f) => f.path === `${kind}/${FIXTURE_RESOURCES[kind].name}`);
          const size = encoder.encode(FIXTURE_RESOURCES[kind].content).byteLength;
          check(file?.size === size, `listFiles size of ${kind}/${FIXTURE_RESOURCES[kind].name} is ${describeValue(file?.size)}, expected ${size}`);
        }
      },
    },
    {
      id: "files.read",
      title: "readFile returns each listed file's bytes (sizes agree) and SKILL.md names the skill",
      suite: "files",
      run: async ({ provider }) => {
        for (const file of await provider.listFiles(id)) {
          const bytes: unknown = await provider.readFile(id, file.path);
          check(bytes instanceof Uint8Array, `readFile(${show(file.path)}) returned ${describeValue(bytes)}, not a byte array`);
          check(bytes.byteLength === file.size, `readFile(${show(file.path)}) returned ${bytes.byteLength} bytes, listFiles said ${file.size}`);
        }
        const skillMd = new TextDecoder().decode(await provider.readFile(id, "SKILL.md"));
        check(/^(\ufeff)?---\r?\n/.test(skillMd) && new RegExp(`^name:\\s*["']?${id}["']?\\s*$`, "m").test(skillMd), "readFile(SKILL.md) does not look like the fixture's SKILL.md");
      },
    },
    {
      id: "files.unknown",
      title: "listFiles/readFile of an unknown skill → SkillNotFoundError; a missing file → ResourceNotFoundError",
      suite: "files",
      run: async ({ provider }) => {
        await expectError(`listFiles(${show(MISSING_SKILL_ID)})`, () => provider.listFiles(MISSING_SKILL_ID), [SKILL_NOT_FOUND]);
        await expectError(`readFile(${show(MISSING_SKILL_ID)}, "SKILL.md")`, () => provider.readFile(MISSING_SKILL_ID, "SKILL.md"), [SKILL_NOT_FOUND]);
        await expectError(`readFile(${show(id)}, ${show(MISSING_RESOURCE_NAME)})`, () => provider.readFile(id, MISSING_RESOURCE_NAME), [RESOURCE_NOT_FOUND]);
      },
    },
  ];
}
