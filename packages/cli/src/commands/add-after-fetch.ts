// What `add` needs only once its source is fetched: the reader and validator, the audit (the largest part) and the
// writer. `add` starts loading this module before it opens the source, so a clone's wait on the network and the
// loading overlap instead of following each other (decision 0427).
import { collectSkill, computedHash, installSkills, readLock, readSidecar, renameSkill } from "@skillport/install";
import { installAuditGate, recordedAudits } from "../install-audit.js";

// The audit's scanner loads on first need (decision 0429); `add` scans every skill, so it starts loading here, with
// the rest, while the source is fetched. A failure to load surfaces where the audit gate loads it.
void import("../audit-scan.js").catch(() => undefined);

export {
  collectSkill,
  computedHash,
  installAuditGate,
  installSkills,
  readLock,
  readSidecar,
  recordedAudits,
  renameSkill,
};
