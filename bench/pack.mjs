#!/usr/bin/env node
// Packaging benchmark: packDirectory vs Info-ZIP `zip -r -X -q -6`, unpackArchive vs `unzip -q`, on a generated
// ~10 MB / ~400-file package tree. Medians of paired runs in one process; compare ratios, not absolute times. Two
// "node floor" rows are the least any Node tool pays for the same work (one node process, no checks, no manifest).
// Usage: node bench/pack.mjs [--runs N] [--tree <dir>]   (needs `npm run build` first, and zip/unzip on PATH)
//   --tree packs a real package tree instead (e.g. a checkout of anthropics/skills, as issue 14 measures); the CLI
//   packs it with the lenient profile: FastGPT's 500-character and the spec's 1,024-character description limits refuse some public skills.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const packEntry = path.join(here, "../packages/pack/dist/index.js");
// What users run: the built CLI (its start-up and module loading included).
const cli = path.join(here, "../packages/cli/dist/cli.js");
const { packDirectoryToFile, unpackArchive } = await import(packEntry);

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Math.max(5, Number(process.argv[runsArg + 1])) : 7;
const treeArg = process.argv.indexOf("--tree");
const givenTree = treeArg > 0 ? path.resolve(process.argv[treeArg + 1]) : undefined;
for (const bin of ["zip", "unzip"]) {
  if (spawnSync("sh", ["-c", `command -v ${bin}`]).status !== 0) {
    console.error(`bench/pack.mjs needs ${bin} on PATH`);
    process.exit(2);
  }
}

// Deterministic content: a small xorshift PRNG so every run packs the same tree.
let seed = 0x2545f491;
const rand = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) / 0x100000000);
const WORDS =
  "skill agent package version deploy sandbox script reference asset model tool prompt catalog digest archive".split(
    " ",
  );
const text = (bytes) => {
  let out = "";
  while (out.length < bytes) out += `${WORDS[Math.floor(rand() * WORDS.length)]}${rand() < 0.1 ? ".\n" : " "}`;
  return out.slice(0, bytes);
};
const binary = (bytes) => {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = Math.floor(rand() * 256);
  return buf;
};

function generate(root) {
  let files = 0;
  let bytes = 0;
  const put = (rel, content) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    files++;
    bytes += content.length;
  };
  for (let s = 0; s < 40; s++) {
    const name = `skill-${String(s).padStart(2, "0")}`;
    put(
      `skills/${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: Generated skill ${s} for the packaging benchmark.\n---\n\n${text(6000)}`,
    );
    for (let i = 0; i < 3; i++)
      put(`skills/${name}/scripts/tool_${i}.py`, `# generated\n${text(4000 + Math.floor(rand() * 8000))}`);
    for (let i = 0; i < 4; i++) put(`skills/${name}/references/ref_${i}.md`, text(8000 + Math.floor(rand() * 30000)));
    put(`skills/${name}/assets/image.bin`, binary(60000 + Math.floor(rand() * 120000)));
    put(`skills/${name}/assets/data.json`, JSON.stringify({ rows: text(20000).split(" ") }));
  }
  put("entrypoint.sh", "#!/bin/bash\nset -e\necho ready\n");
  put("requirements.txt", "requests==2.32.0\n");
  return { files, bytes };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
// CPU seconds of waited-for child processes (Linux /proc; clock ticks of 10 ms), so a loaded machine can be judged.
const childCpu = () => {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
};
/** Wall and CPU seconds (this process, thread pool included, plus children). */
const time = async (fn) => {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const children = childCpu();
  await fn();
  const used = process.cpuUsage(cpu);
  return {
    wall: Number(process.hrtime.bigint() - start) / 1e9,
    cpu: (used.user + used.system) / 1e6 + (childCpu() - children),
  };
};

/** Files and bytes of a given tree (regular files, links not followed). */
function measureTree(root) {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return { files, bytes };
}

const work = mkdtempSync(path.join(tmpdir(), "skillport-bench-pack-"));
try {
  const tree = givenTree ?? path.join(work, "tree");
  const { files, bytes } = givenTree ? measureTree(givenTree) : generate(tree);
  const packOptions = givenTree ? { profile: "lenient" } : {};
  const nodePackScript = `const { packDirectoryToFile } = await import(${JSON.stringify(packEntry)}); await packDirectoryToFile(process.argv[1], process.argv[2], ${JSON.stringify(packOptions)});`;
  const nodeUnpackScript = `const { unpackArchive } = await import(${JSON.stringify(packEntry)}); await unpackArchive(process.argv[1], process.argv[2]);`;
  // Floors for any Node tool (no checks, no manifest, no module graph): what a Node process must pay to deflate and
  // write every file, or to inflate and write every entry. Our ratios to these show our own overhead; their ratios to
  // zip/unzip show what Node itself costs here (its start-up, and on slow-page-fault hosts its fresh memory).
  const nodeZipFloorScript = `import fs from "node:fs"; import path from "node:path"; import zlib from "node:zlib";
    const out = []; const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.isFile()) out.push(zlib.deflateRawSync(fs.readFileSync(p), { level: 6 })); } };
    walk(process.argv[1]); fs.writeFileSync(process.argv[2], Buffer.concat(out));`;
  const nodeUnzipFloorScript = `import fs from "node:fs"; import path from "node:path"; import zlib from "node:zlib";
    const b = fs.readFileSync(process.argv[1]); const dest = process.argv[2]; let end = b.length - 22; while (b.readUInt32LE(end) !== 0x06054b50) end--;
    let at = b.readUInt32LE(end + 16); const made = new Set();
    for (let i = 0, n = b.readUInt16LE(end + 10); i < n; i++) {
      const method = b.readUInt16LE(at + 10), csize = b.readUInt32LE(at + 20), nlen = b.readUInt16LE(at + 28), local = b.readUInt32LE(at + 42);
      const name = b.toString("utf8", at + 46, at + 46 + nlen); at += 46 + nlen + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
      if (name.endsWith("/")) continue;
      const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28); const data = b.subarray(start, start + csize);
      const file = path.join(dest, name); const dir = path.dirname(file); if (!made.has(dir)) { fs.mkdirSync(dir, { recursive: true }); made.add(dir); }
      fs.writeFileSync(file, method === 8 ? zlib.inflateRawSync(data) : data);
    }`;
  const samples = {
    pack: [],
    packProc: [],
    packCli: [],
    packFloor: [],
    zip: [],
    unpack: [],
    unpackProc: [],
    unpackCli: [],
    unpackFloor: [],
    unzip: [],
    node: [],
  };
  let sizes;
  for (let run = 0; run < RUNS; run++) {
    const ours = path.join(work, `ours-${run}.zip`);
    const theirs = path.join(work, `theirs-${run}.zip`);
    const oursProc = path.join(work, `ours-proc-${run}.zip`);
    samples.pack.push(await time(() => packDirectoryToFile(tree, ours, packOptions)));
    samples.packProc.push(
      await time(async () =>
        execFileSync(process.execPath, ["--input-type=module", "-e", nodePackScript, tree, oursProc]),
      ),
    );
    samples.packCli.push(
      await time(async () =>
        execFileSync(process.execPath, [
          cli,
          "pack",
          tree,
          "-o",
          path.join(work, `ours-cli-${run}.zip`),
          ...(givenTree ? ["--profile", "lenient"] : []),
        ]),
      ),
    );
    samples.packFloor.push(
      await time(async () =>
        execFileSync(process.execPath, [
          "--input-type=module",
          "-e",
          nodeZipFloorScript,
          tree,
          path.join(work, `floor-${run}.bin`),
        ]),
      ),
    );
    samples.zip.push(await time(async () => execFileSync("zip", ["-r", "-X", "-q", "-6", theirs, "."], { cwd: tree })));
    sizes = { ours: statSync(ours).size, theirs: statSync(theirs).size };
    samples.unpack.push(await time(() => unpackArchive(ours, path.join(work, `u-ours-${run}`))));
    samples.unpackProc.push(
      await time(async () =>
        execFileSync(process.execPath, [
          "--input-type=module",
          "-e",
          nodeUnpackScript,
          ours,
          path.join(work, `u-proc-${run}`),
        ]),
      ),
    );
    samples.unpackCli.push(
      await time(async () => execFileSync(process.execPath, [cli, "unpack", ours, path.join(work, `u-cli-${run}`)])),
    );
    samples.unpackFloor.push(
      await time(async () =>
        execFileSync(process.execPath, [
          "--input-type=module",
          "-e",
          nodeUnzipFloorScript,
          ours,
          path.join(work, `u-floor-${run}`),
        ]),
      ),
    );
    samples.unzip.push(
      await time(async () => execFileSync("unzip", ["-q", ours, "-d", path.join(work, `u-theirs-${run}`)])),
    );
    samples.node.push(await time(async () => execFileSync(process.execPath, ["-e", "0"])));
  }
  const m = Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [
      k,
      { wall: median(v.map((x) => x.wall)), cpu: median(v.map((x) => x.cpu)) },
    ]),
  );
  const row = (label, key, base) =>
    `| ${label.padEnd(44)} | ${m[key].wall.toFixed(3).padStart(7)} s | ${(m[key].wall / m[base].wall).toFixed(2).padStart(5)}x | ${m[key].cpu.toFixed(2).padStart(6)} s | ${(m[key].cpu / m[base].cpu).toFixed(2).padStart(5)}x |`;
  console.log(
    `tree: ${givenTree ?? "generated"}: ${files} files, ${(bytes / 1048576).toFixed(1)} MiB; ${RUNS} runs, medians; node ${process.version}; load ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
  );
  console.log(
    `archive size: packDirectory ${(sizes.ours / 1048576).toFixed(2)} MiB, zip -6 ${(sizes.theirs / 1048576).toFixed(2)} MiB`,
  );
  console.log(`| ${"operation".padEnd(44)} | wall      | ratio | CPU      | ratio |`);
  console.log(`|${"-".repeat(46)}|-----------|-------|----------|-------|`);
  console.log(row("zip -r -X -q -6 (baseline)", "zip", "zip"));
  console.log(row("packDirectoryToFile, in-process", "pack", "zip"));
  console.log(row("packDirectoryToFile, whole node process", "packProc", "zip"));
  console.log(row("skillport pack <dir> -o <zip> (CLI)", "packCli", "zip"));
  console.log(row("node floor: read, deflate, write (no checks)", "packFloor", "zip"));
  console.log(row("unzip -q (baseline)", "unzip", "unzip"));
  console.log(row("unpackArchive, in-process", "unpack", "unzip"));
  console.log(row("unpackArchive, whole node process", "unpackProc", "unzip"));
  console.log(row("skillport unpack <zip> <dir> (CLI)", "unpackCli", "unzip"));
  console.log(row("node floor: inflate, write (no checks)", "unpackFloor", "unzip"));
  console.log(row("node -e 0", "node", "unzip"));
  console.log(
    `skillport pack CLI / node floor: ${(m.packCli.wall / m.packFloor.wall).toFixed(2)}x wall; skillport unpack CLI / node floor: ${(m.unpackCli.wall / m.unpackFloor.wall).toFixed(2)}x wall`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
