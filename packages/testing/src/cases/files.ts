import { bytesEqual, check, deepEqual, describeValue, expectError } from "../check.js";
import {
  FIXTURE_BODY,
  FIXTURE_FRONTMATTER,
  FIXTURE_RESOURCES,
  MISSING_RESOURCE_NAME,
  MISSING_SKILL_ID,
} from "../fixture.js";
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
          await expectError("listFiles (declared unsupported)", () => provider.listFiles(id), [
            FILE_ACCESS_NOT_SUPPORTED,
          ]);
          await expectError("readFile (declared unsupported)", () => provider.readFile(id, "SKILL.md"), [
            FILE_ACCESS_NOT_SUPPORTED,
          ]);
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
        check(
          deepEqual(paths, expectedPaths),
          `listFiles paths are ${describeValue(paths)}, expected ${describeValue(expectedPaths)}`,
        );
        for (const kind of KINDS) {
          const file = files.find((f) => f.path === `${kind}/${FIXTURE_RESOURCES[kind].name}`);
          const size = encoder.encode(FIXTURE_RESOURCES[kind].content).byteLength;
          check(
            file?.size === size,
            `listFiles size of ${kind}/${FIXTURE_RESOURCES[kind].name} is ${describeValue(file?.size)}, expected ${size}`,
          );
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
          check(
            bytes instanceof Uint8Array,
            `readFile(${show(file.path)}) returned ${describeValue(bytes)}, not a byte array`,
          );
          check(
            bytes.byteLength === file.size,
            `readFile(${show(file.path)}) returned ${bytes.byteLength} bytes, listFiles said ${file.size}`,
          );
        }
        const skillMd = new TextDecoder().decode(await provider.readFile(id, "SKILL.md"));
        check(
          /^(\ufeff)?---\r?\n/.test(skillMd) && new RegExp(`^name:\\s*["']?${id}["']?\\s*$`, "m").test(skillMd),
          "readFile(SKILL.md) does not look like the fixture's SKILL.md",
        );
      },
    },
    {
      id: "files.unknown",
      title: "listFiles/readFile of an unknown skill → SkillNotFoundError; a missing file → ResourceNotFoundError",
      suite: "files",
      run: async ({ provider }) => {
        await expectError(`listFiles(${show(MISSING_SKILL_ID)})`, () => provider.listFiles(MISSING_SKILL_ID), [
          SKILL_NOT_FOUND,
        ]);
        await expectError(
          `readFile(${show(MISSING_SKILL_ID)}, "SKILL.md")`,
          () => provider.readFile(MISSING_SKILL_ID, "SKILL.md"),
          [SKILL_NOT_FOUND],
        );
        await expectError(
          `readFile(${show(id)}, ${show(MISSING_RESOURCE_NAME)})`,
          () => provider.readFile(id, MISSING_RESOURCE_NAME),
          [RESOURCE_NOT_FOUND],
        );
      },
    },
    {
      id: "files.whole-skill",
      title:
        "getSkill/getAllSkills (AgentScope's whole-skill reads) give the fixture: frontmatter, body, every resource's bytes",
      suite: "files",
      run: async ({ provider }) => {
        check(
          typeof provider.getSkill === "function" && typeof provider.getAllSkills === "function",
          "getSkill/getAllSkills are not functions",
        );
        const skill = await provider.getSkill(id);
        check(
          skill.name === id && skill.description === FIXTURE_FRONTMATTER.description,
          `getSkill gave name ${show(skill.name)}, description ${show(skill.description)}`,
        );
        check(skill.body.trim() === FIXTURE_BODY.trim(), "getSkill's body is not the fixture's body");
        const expected = KINDS.map((k) => `${k}/${FIXTURE_RESOURCES[k].name}`).sort();
        const paths = [...skill.resources.keys()].sort();
        check(
          deepEqual(paths, expected),
          `getSkill's resources are ${describeValue(paths)}, expected ${describeValue(expected)} (SKILL.md is the skill, not a resource)`,
        );
        for (const kind of KINDS) {
          const content = skill.resources.get(`${kind}/${FIXTURE_RESOURCES[kind].name}`);
          const bytes = typeof content === "string" ? encoder.encode(content) : content;
          check(
            bytes !== undefined && bytesEqual(bytes, encoder.encode(FIXTURE_RESOURCES[kind].content)),
            `getSkill's ${kind} file differs from the fixture`,
          );
        }
        if (options.supportsDiscovery ?? true) {
          const all = await provider.getAllSkills();
          check(
            deepEqual(
              all.map((s) => s.name),
              [id],
            ),
            `getAllSkills gave ${describeValue(all.map((s) => s.name))}, expected [${show(id)}]`,
          );
        }
        await expectError(`getSkill(${show(MISSING_SKILL_ID)})`, () => provider.getSkill(MISSING_SKILL_ID), [
          SKILL_NOT_FOUND,
        ]);
      },
    },
  ];
}
