// Seed 000's own entrypoint (`pip install --no-cache-dir -r requirements.txt`) on a system Python that refuses
// installs (PEP 668): each version gets its own virtual environment, first on PATH (decision 0271). The requirement
// is a pure-Python wheel shipped inside the package, so nothing is fetched.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Workspace } from "./workspace.js";
import { haveBubblewrap, useTempDirs, writePackage } from "./__fixtures__/helpers.js";
import { VENV_DIR } from "./python-env.js";

const bwrap = haveBubblewrap(console.warn);
const { tmp } = useTempDirs();

/** Seed 000's entrypoint, byte for byte as the seed shows it. */
const SEED_ENTRYPOINT =
  '#!/bin/bash\nset -e\n\nif [ -f "requirements.txt" ]; then\n  pip install --no-cache-dir -r requirements.txt\nfi\n';

/** A minimal pure-Python wheel (a real zip with the dist-info pip requires), made with Python's zipfile. */
function wheel(dir: string, tag: string): string {
  const name = "tinyfmt-1.0-py3-none-any.whl";
  const file = path.join(dir, name);
  const py = [
    "import sys, zipfile",
    "with zipfile.ZipFile(sys.argv[1], 'w') as z:",
    "    z.writestr('tinyfmt/__init__.py', 'def hello():\\n    return \"tinyfmt says hi ' + sys.argv[2] + '\"\\n')",
    "    z.writestr('tinyfmt-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: tinyfmt\\nVersion: 1.0\\n')",
    "    z.writestr('tinyfmt-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
    "    z.writestr('tinyfmt-1.0.dist-info/RECORD', '')",
  ].join("\n");
  execFileSync("python3", ["-c", py, file, tag]);
  return name;
}

async function seedPackage(tag: string): Promise<string> {
  const dir = await tmp();
  await mkdir(path.join(dir, "wheels"), { recursive: true });
  const whl = wheel(path.join(dir, "wheels"), tag);
  return writePackage(dir, {
    entrypoint: SEED_ENTRYPOINT,
    files: {
      "requirements.txt": `./wheels/${whl}\n`,
      "skills/demo/scripts/use.py": "import tinyfmt\nprint(tinyfmt.hello())\n",
    },
  });
}

describe.runIf(bwrap)("the seed's entrypoint on a PEP 668 system Python", () => {
  it(
    "installs into the version's own environment; the version's commands import it; other versions do not see it",
    { timeout: 120_000 },
    async () => {
      const ws = new Workspace(await tmp(), { sandbox: "bubblewrap" });
      try {
        const { versions, initialization } = await ws.deploy([await seedPackage("a")]);
        const v = versions[0]!.versionId;
        const report = await initialization;
        expect(report.outcomes, JSON.stringify(report.outcomes)).toMatchObject([
          { target: v, status: "ran", exitCode: 0 },
        ]);
        expect(existsSync(path.join(ws.projectsDir, v, VENV_DIR, "bin", "python3"))).toBe(true);

        const run = await ws.exec("python3 skills/demo/scripts/use.py", { cwd: `projects/${v}` });
        expect(run.observation.trim()).toBe("tinyfmt says hi a");
        expect(run.exitCode).toBe(0);
        // The system's Python is untouched: outside the version's folder the package is not importable.
        const outside = await ws.exec("python3 -c 'import tinyfmt' 2>&1 | tail -1");
        expect(outside.observation).toContain("No module named 'tinyfmt'");

        // Redeploying without that version removes its environment with it (it lives in the version's folder).
        const plain = await writePackage(await tmp(), { files: { "tag.txt": "plain" } });
        const next = await ws.deploy([plain]);
        await next.initialization;
        expect(next.removed).toEqual([v]);
        expect(existsSync(path.join(ws.projectsDir, v))).toBe(false);
      } finally {
        await ws.close();
      }
    },
  );

  it("a version whose entrypoint does not use pip gets no environment made", async () => {
    const ws = new Workspace(await tmp(), { sandbox: "bubblewrap" });
    try {
      const dir = await writePackage(await tmp(), { entrypoint: "echo ready\n", files: { "tag.txt": "no-pip" } });
      const { versions, initialization } = await ws.deploy([dir]);
      expect((await initialization).outcomes).toMatchObject([{ status: "ran" }]);
      expect(existsSync(path.join(ws.projectsDir, versions[0]!.versionId, VENV_DIR))).toBe(false);
    } finally {
      await ws.close();
    }
  });
});
