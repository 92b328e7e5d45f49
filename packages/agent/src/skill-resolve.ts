import { suggestClosest } from "@skillport/core/internal";
import type { BoxSkill } from "./box-skill.js";

/**
 * The skill a `skillId` argument names among the visible ones: the exact id, else the one skill of that name or registry
 * id; otherwise "did you mean" candidates.
 */
export function resolveSkill(
  given: string,
  visible: readonly BoxSkill[],
  byId: (id: string) => BoxSkill | undefined,
): BoxSkill | { suggestions: string[] } {
  const exact = byId(given);
  if (exact && !exact.hidden) return exact;
  const byName = visible.filter((s) => s.name === given || s.registryId === given);
  if (byName.length === 1) return byName[0] as BoxSkill;
  return { suggestions: byName.length > 1 ? byName.map((s) => s.id) : suggestionsFor(given, visible) };
}

/** "Did you mean": core's suggestClosest over ids and names, plus skills whose id or name contains what was given. */
function suggestionsFor(given: string, skills: readonly BoxSkill[]): string[] {
  const out = new Set<string>();
  const closestId = suggestClosest(
    given,
    skills.map((s) => s.id),
  );
  if (closestId) out.add(closestId);
  const closestName = suggestClosest(
    given,
    skills.map((s) => s.name),
  );
  const named = closestName === undefined ? undefined : skills.find((s) => s.name === closestName);
  if (named) out.add(named.id);
  const lower = given.trim().toLowerCase();
  if (lower.length >= 3)
    for (const s of skills)
      if (s.name.toLowerCase().includes(lower) || lower.includes(s.name.toLowerCase())) out.add(s.id);
  return [...out].slice(0, 3);
}
