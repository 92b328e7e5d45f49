// The audit's scanner (its rule table, decoders and SKILL.md reading), loaded on first need: a restore whose every
// report is kept from an earlier run never loads it (decision 0429). A module of its own so the bundle gives the
// scanner chunks of their own behind one dynamic import.
import { auditSkill } from "@skillport/audit";

export { auditSkill };
