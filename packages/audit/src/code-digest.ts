// Written by packages/audit/scripts/code-digest.mjs --write: the digest of the audit's code (decision 0428).
// A verdict cached under it was produced by exactly this code; src/code-digest.test.ts keeps it current.
export const AUDIT_CODE_DIGEST = "ae90880c6ad4543a";
