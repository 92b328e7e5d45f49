// A guard against second copies (issue 7): one walker, one isInside, one findBubblewrap, one path-rule set, one atomic
// write. It reads every package's sources (tests and fixtures excluded) and fails when a second definition — or a new
// directory listing outside the one walker — appears. Each allowed exception is listed with its reason; those marked
// "to be migrated" must move onto the floor, and an entry that no longer matches anything fails too, so the list
// only shrinks.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packages = fileURLToPath(new URL("../../", import.meta.url));

function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const pkg of readdirSync(packages)) {
    const src = path.join(packages, pkg, "src");
    const visit = (dir: string, rel: string): void => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const child = `${rel}/${entry.name}`;
        if (entry.isDirectory()) {
          if (entry.name !== "__fixtures__" && entry.name !== "templates") visit(path.join(dir, entry.name), child);
        } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")) {
          files.set(`${pkg}/src${child}`, readFileSync(path.join(dir, entry.name), "utf8"));
        }
      }
    };
    visit(src, "");
  }
  return files;
}

interface Rule {
  what: string;
  pattern: RegExp;
  /** The one home of the thing. */
  home: readonly string[];
  /** Other files allowed to match, each with why. */
  allowed: Readonly<Record<string, string>>;
}

const RULES: readonly Rule[] = [
  {
    what: "a directory listing (readdir/opendir) outside the one walker, walkTree, and its listing (names not UTF-8 apart)",
    pattern: /\b(?:readdir|readdirSync|opendir|opendirSync)\s*\(/,
    home: ["fs/src/floor/dir-entries.ts"],
    allowed: {
      "fs/src/floor/dir-fd.ts":
        "one level at a time: removing a sandbox-writable tree through pinned descriptors (the walker lists by path)",
      "runtime/src/workspace.ts": "one level: the version folders under projects/ (owned by the workspace work)",
      "remote/src/test-support/cache.ts": "test support: lists a cache folder so tests can assert on what it holds",
      "sandbox/src/etc-snapshot.ts":
        "one level: the entries of an /etc snapshot checked before use, and old snapshots in the state folder",
      "sandbox/src/cgroups.ts": "one level: stale cgroups left by killed runs",
      "agent/src/code-exec/file-tools.ts": "one level: the model's list_directory tool lists one folder it opened",
      "pack/src/unpack.ts": "one level: whether a target folder is empty",
      "plugin-host/src/host/worker-script.ts": "one level: the compiled worker files",
      "plugin-host/src/toolchain/logos.ts": "one level: logo files sit in the plugin root",
      "plugin-host/src/toolchain/build.ts": "one level: whether the output folder holds a previous build",
    },
  },
  {
    what: "a second isInside",
    pattern: /(?:function|const|let)\s+isInside\b/,
    home: ["fs/src/floor/confine.ts"],
    allowed: {},
  },
  {
    what: "a second findBubblewrap",
    pattern: /(?:function|const|let)\s+findBubblewrap\b/,
    home: ["sandbox/src/bubblewrap.ts"],
    allowed: {},
  },
  {
    what: "a second set of path rules (core's safe-path.ts is the one)",
    pattern: /(?:function|const|let)\s+\w*(?:unsafePath|safePath|PathReason|pathProblem)\w*\s*[=(]/i,
    home: ["core/src/safe-path.ts"],
    allowed: {
      "core/src/resource-problems.ts": "turns core's own rules into save diagnostics",
    },
  },
  {
    what: "an error class outside the one error root (AgentSkillsError)",
    pattern: /class\s+\w+\s+extends\s+(?:Error|TypeError|RangeError)\b/,
    home: ["core/src/errors.ts"],
    allowed: {
      "plugin-host/src/host/worker/main.ts":
        "inside the sandboxed worker, never seen by callers: carries a worker error code to the host protocol",
      "plugin-host/src/host/services.ts": "private control flow, turned into a structured invoke failure on the spot",
      "testing/src/check.ts": "a failed conformance assertion is a test failure, not a Skillport error",
    },
  },
  {
    what: "a hand read of a Node error's code (use errorCode)",
    pattern: /NodeJS\.ErrnoException/,
    home: ["fs/src/floor/errno.ts"],
    allowed: {
      "cli/src/main.ts": "the EPIPE handler on the --version path, which loads no package module",
    },
  },
  {
    what: "a hand-written 'inside' test on path.relative (use isInside)",
    pattern: /rel(?:ative)?\.startsWith\(\s*(?:"\.\."|`\.\.)/,
    home: ["fs/src/floor/confine.ts"],
    allowed: {},
  },
  {
    what: "a second routine that swaps a folder into place (use swapIntoPlace)",
    pattern: /(?:function|const|let)\s+\w*(?:swapIn|swapInto|replaceFolder|replaceDir)\w*\s*[=(]/,
    home: ["fs/src/floor/atomic.ts"],
    allowed: {
      "install/src/place.ts": "a thin wrapper: swapIntoPlace through a pinned folder, then removeTree of the aside",
      "plugin-host/src/toolchain/build.ts":
        "a thin wrapper: marks the build ready, swapIntoPlace, then removes the aside",
    },
  },
  {
    what: "a second atomic write",
    pattern: /(?:function|const|let)\s+\w*(?:writeFileAtomic|writeAtomic|atomicWrite)\w*\s*[=(]/,
    home: ["fs/src/floor/atomic.ts"],
    allowed: {},
  },
];

describe("one Node floor: no second copies", () => {
  const files = sources();

  it("reads the sources of every package", () => {
    expect(files.size).toBeGreaterThan(50);
    expect(files.has("fs/src/floor/walk.ts")).toBe(true);
  });

  for (const rule of RULES) {
    it(`no ${rule.what}`, () => {
      const matching = [...files].filter(([, text]) => rule.pattern.test(text)).map(([file]) => file);
      const unexpected = matching.filter((file) => !rule.home.includes(file) && !(file in rule.allowed));
      expect(unexpected, `${rule.what}: use the one in ${rule.home.join(", ")}`).toEqual([]);
      const stale = Object.keys(rule.allowed).filter((file) => !matching.includes(file));
      expect(stale, "allowed exceptions that no longer match: remove them from the list").toEqual([]);
    });
  }

  // The ground floor (fs/src/floor/) stands on Node and core alone: nothing of the skill layer above it (src/skills/),
  // no third-party module, so whatever reaches the floor never drags the provider, chokidar or core's parser along.
  it("the floor imports only Node, @skillport/core and its own modules", () => {
    const floor = [...files].filter(([file]) => file.startsWith("fs/src/floor/"));
    expect(floor.length).toBeGreaterThanOrEqual(7);
    const outside = floor.flatMap(([file, text]) =>
      [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)]
        .map((match) => match[1] as string)
        .filter((specifier) => !/^node:|^@skillport\/core(?:\/internal)?$|^\.\/[\w-]+\.js$/.test(specifier))
        .map((specifier) => `${file} → ${specifier}`),
    );
    expect(outside).toEqual([]);
  });
});
