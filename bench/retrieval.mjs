// `npm run bench retrieval`: search confidence calibrated on two tuning corpora of real public skills and reported on
// a held-out third (bench/retrieval/calibrate.mjs --report). The corpora come from snapshots of their repositories
// ($SKILLPORT_BENCH_SNAPSHOTS); without them this step prints why it was skipped and succeeds.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const result = spawnSync(
  process.execPath,
  [path.join(here, "retrieval", "calibrate.mjs"), "--report", ...process.argv.slice(2)],
  { stdio: "inherit" },
);
process.exitCode = result.status ?? 1;
