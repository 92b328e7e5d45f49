import { compareCodeUnits } from "./compare.js";
import type { Diagnostic } from "./diagnostics.js";
import type { Frontmatter, ResourceListing, SkillFile, SkillProvider } from "./types.js";

/** One skill as the registry serves it. Content is read lazily from the provider; metadata is cached per refresh. */
export interface RegistryEntry {
  readonly id: string;
  /** `<source>:<id>`: reaches this skill even when another source's skill of the same id wins. */
  readonly qualifiedId: string;
  readonly source: string;
  readonly provider: SkillProvider;
  /** Warnings found when the skill was registered (errors keep a skill out). */
  readonly diagnostics: readonly Diagnostic[];
  /** A fresh copy of the metadata read at the last refresh (no provider call). */
  getMetadata(): Frontmatter;
  getBody(): Promise<string>;
  getReference(name: string): Promise<Uint8Array>;
  getScript(name: string): Promise<Uint8Array>;
  getAsset(name: string): Promise<Uint8Array>;
  listResources(): Promise<ResourceListing>;
  listFiles(): Promise<SkillFile[]>;
  readFile(path: string): Promise<Uint8Array>;
  getLocation(): Promise<string | undefined>;
}

/** A skill that another source's skill of the same id hides. */
export interface Shadowing {
  id: string;
  /** Qualified id of the skill that wins. */
  winner: string;
  /** Qualified id of the hidden skill (still reachable by it). */
  shadowed: string;
}

/** A skill (or a whole source) that could not be registered, and why. */
export interface RegistrationFailure {
  source: string;
  /** Undefined when the whole source failed (e.g. discovery raised). */
  id: string | undefined;
  message: string;
  diagnostics: readonly Diagnostic[];
}

export interface RegistryChange {
  added: string[];
  removed: string[];
  /**
   * Ids whose winning skill or metadata changed, or whose provider reported a change through `watch` (a body or a
   * resource may have changed without the metadata changing).
   */
  updated: string[];
}

/** What one pass read of one source. */
export interface Loaded {
  readonly entries: Map<string, RegistryEntry>; // by qualified id
  failures: readonly RegistrationFailure[];
}

/**
 * The registry's whole state. A snapshot is never changed once anything holds it (the search index, a pass diffing
 * against it): `patchSnapshot` may only be given one the registry alone holds, and it replaces the arrays it changes
 * (`shadowed`, `failures`) rather than editing them, since the registry's getters hand those out.
 */
export interface Snapshot {
  /** Winners by id. */
  readonly byId: Map<string, RegistryEntry>;
  /** Every registered skill by qualified id, shadowed ones included. */
  readonly byQualified: Map<string, RegistryEntry>;
  shadowed: readonly Shadowing[];
  failures: readonly RegistrationFailure[];
  /** Per source, what the last successful load produced (kept when a later discovery fails). */
  readonly perSource: Map<string, Loaded>;
}

export const emptySnapshot = (): Snapshot => ({
  byId: new Map(),
  byQualified: new Map(),
  shadowed: [],
  failures: [],
  perSource: new Map(),
});

/** The whole snapshot from what each source loaded; `order` is the sources' precedence (earlier wins). O(skills). */
export function buildSnapshot(order: readonly string[], perSource: Map<string, Loaded>): Snapshot {
  const snapshot = emptySnapshot();
  const failures: RegistrationFailure[] = [];
  const shadowed: Shadowing[] = [];
  for (const name of order) {
    const loaded = perSource.get(name);
    if (!loaded) continue;
    snapshot.perSource.set(name, loaded);
    failures.push(...loaded.failures);
    for (const entry of [...loaded.entries.values()].sort((a, b) => compareCodeUnits(a.id, b.id))) {
      snapshot.byQualified.set(entry.qualifiedId, entry);
      const winner = snapshot.byId.get(entry.id);
      if (winner) shadowed.push({ id: entry.id, winner: winner.qualifiedId, shadowed: entry.qualifiedId });
      else snapshot.byId.set(entry.id, entry);
    }
  }
  snapshot.failures = failures;
  snapshot.shadowed = shadowed;
  return snapshot;
}

/** A copy the registry may patch while readers keep the original (O(skills), paid once per shared snapshot). */
export function copySnapshot(snapshot: Snapshot): Snapshot {
  const perSource = new Map<string, Loaded>();
  for (const [name, loaded] of snapshot.perSource)
    perSource.set(name, { entries: new Map(loaded.entries), failures: loaded.failures });
  return {
    byId: new Map(snapshot.byId),
    byQualified: new Map(snapshot.byQualified),
    shadowed: snapshot.shadowed,
    failures: snapshot.failures,
    perSource,
  };
}

/** What a partial pass read of one source: per id, its entry, why it failed, or neither (the skill is gone). */
export interface SourcePatch {
  readonly source: string;
  readonly results: ReadonlyArray<{
    readonly id: string;
    readonly entry?: RegistryEntry;
    readonly failure?: RegistrationFailure;
  }>;
}

export interface PatchOutcome {
  change: RegistryChange;
  /** Shadowings that did not exist before the patch. */
  shadowings: Shadowing[];
  /** Failures that were not reported before the patch. */
  failures: RegistrationFailure[];
}

/**
 * Applies a partial pass to `snapshot` in place, in one synchronous step, in O(ids × sources) plus the size of the
 * `shadowed`/`failures` lists when they change: the same state `buildSnapshot` would reach from the patched loads.
 * `order` is the sources' precedence; the source must already be loaded in the snapshot.
 */
export function patchSnapshot(snapshot: Snapshot, order: readonly string[], patch: SourcePatch): PatchOutcome {
  const loaded = snapshot.perSource.get(patch.source);
  if (!loaded) throw new Error(`registry: source ${patch.source} was never loaded`); // the caller checks; a bug otherwise
  const results = new Map(patch.results.map((r) => [r.id, r]));
  const holders = (id: string) =>
    order.flatMap((name) => snapshot.perSource.get(name)?.entries.get(`${name}:${id}`) ?? []);
  const change: RegistryChange = { added: [], removed: [], updated: [] };
  const shadowings: Shadowing[] = [];
  let shadowingChanged = false;
  for (const [id, result] of results) {
    const before = holders(id);
    const qualified = `${patch.source}:${id}`;
    loaded.entries.delete(qualified);
    snapshot.byQualified.delete(qualified);
    if (result.entry) {
      loaded.entries.set(qualified, result.entry);
      snapshot.byQualified.set(qualified, result.entry);
    }
    const after = holders(id);
    const [was, winner] = [before[0], after[0]];
    if (winner) snapshot.byId.set(id, winner);
    else snapshot.byId.delete(id);
    if (!was && winner) change.added.push(id);
    else if (was && !winner) change.removed.push(id);
    else if (
      was &&
      winner &&
      was !== winner &&
      (was.qualifiedId !== winner.qualifiedId || !sameJson(was.getMetadata(), winner.getMetadata()))
    )
      change.updated.push(id);
    if (before.length > 1 || after.length > 1) {
      shadowingChanged ||= before.map((e) => e.qualifiedId).join("\n") !== after.map((e) => e.qualifiedId).join("\n");
      const known = new Set(before.slice(1).map((e) => e.qualifiedId));
      for (const hidden of after.slice(1)) {
        if (winner && !known.has(hidden.qualifiedId))
          shadowings.push({ id, winner: winner.qualifiedId, shadowed: hidden.qualifiedId });
      }
    }
  }
  if (shadowingChanged) {
    const rank = new Map(order.map((name, i) => [name, i]));
    const kept = snapshot.shadowed.filter((s) => !results.has(s.id));
    const fresh = [...results.keys()].flatMap((id) => {
      const [winner, ...hidden] = holders(id);
      return winner ? hidden.map((h) => ({ id, winner: winner.qualifiedId, shadowed: h.qualifiedId })) : [];
    });
    const sourceOf = (s: Shadowing) => rank.get(s.shadowed.slice(0, s.shadowed.length - s.id.length - 1)) ?? 0;
    snapshot.shadowed = [...kept, ...fresh].sort((a, b) => sourceOf(a) - sourceOf(b) || compareCodeUnits(a.id, b.id)); // buildSnapshot's order
  }
  for (const key of ["added", "removed", "updated"] as const) change[key].sort(compareCodeUnits);
  const failures = patch.results.flatMap((r) => r.failure ?? []);
  const stale = (f: RegistrationFailure) => f.id !== undefined && results.has(f.id);
  if (failures.length === 0 && !loaded.failures.some(stale)) return { change, shadowings, failures: [] };
  const knownKeys = new Set(loaded.failures.map(failureKey));
  // In id order, as a full pass lists them (discovery's order); a whole-source failure stays first.
  loaded.failures = [...loaded.failures.filter((f) => !stale(f)), ...failures].sort((a, b) =>
    a.id === undefined ? -1 : b.id === undefined ? 1 : compareCodeUnits(a.id, b.id),
  );
  snapshot.failures = order.flatMap((name) => snapshot.perSource.get(name)?.failures ?? []);
  return { change, shadowings, failures: failures.filter((f) => !knownKeys.has(failureKey(f))) };
}

/** What changed between two snapshots; `reported` holds qualified ids a provider said changed (content may differ). */
export function diffSnapshots(previous: Snapshot, next: Snapshot, reported: ReadonlySet<string>): RegistryChange {
  const added: string[] = [];
  const updated: string[] = [];
  for (const [id, entry] of next.byId) {
    const before = previous.byId.get(id);
    if (!before) added.push(id);
    else if (before === entry)
      continue; // the same entry object: unchanged
    else if (
      before.qualifiedId !== entry.qualifiedId ||
      reported.has(entry.qualifiedId) ||
      !sameJson(before.getMetadata(), entry.getMetadata())
    ) {
      updated.push(id);
    }
  }
  const removed = [...previous.byId.keys()].filter((id) => !next.byId.has(id));
  return {
    added: added.sort(compareCodeUnits),
    removed: removed.sort(compareCodeUnits),
    updated: updated.sort(compareCodeUnits),
  };
}

export function failureKey(f: RegistrationFailure): string {
  return `${f.source}\0${f.id ?? ""}\0${f.message}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
