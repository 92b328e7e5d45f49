// Reading locked skills back from their sources (install, update, outdated, doctor): apart from the source rules in
// install-source.ts so that `add`, which resolves a source before its clone starts, does not load the skill reader with
// them (decision 0444).
import {
  collectSkill,
  computedHash,
  InstallError,
  renameSkill,
  type CollectedSkill,
  type LockEntry,
  type UpstreamName,
} from "@skillport/install";
import type { CliOutput } from "./io.js";
import { openInstallSource } from "./install-archive.js";
import { lockEntrySource, revisionOf } from "./install-source.js";
import type { OpenedSource } from "./sources/opened-source.js";

/**
 * The sources one command opened, by address: the skills of one repository at one commit (the usual lock) are read
 * from one open, and its skills listed by one discovery, instead of one of each per skill. `close` closes them all.
 */
export class OpenedSources {
  readonly #open = new Map<string, Promise<OpenedSource>>();
  readonly #ids = new Map<string, Promise<string[]>>();
  constructor(private readonly io: CliOutput) {}

  open(address: string): Promise<OpenedSource> {
    let opened = this.#open.get(address);
    if (opened === undefined) {
      opened = openInstallSource(address, this.io);
      this.#open.set(address, opened);
    }
    return opened;
  }

  /** The skill ids of the source at `address`, discovered once (a lock of 50 skills used to discover it 50 times). */
  ids(address: string): Promise<string[]> {
    let ids = this.#ids.get(address);
    if (ids === undefined) {
      ids = this.open(address).then((o) => (o.only !== undefined ? [o.only] : o.provider.discover()));
      this.#ids.set(address, ids);
    }
    return ids;
  }

  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    this.#ids.clear();
    await Promise.all(all.map((p) => p.then((o) => o.close()).catch(() => undefined)));
  }
}

/**
 * Opens the entry's source at `commit` (else the lock's ref) and reads the one skill it names, with the revision the
 * source served (git) for the sidecar. A skill installed under another name (`upstream`, the sidecar's record of
 * `add --as`) is looked up by its upstream name and renamed the same way again (decision 0420); any other skill whose
 * name moved upstream is drift. With `sources`, the source stays open for the next skill of the same address.
 */
export async function fetchLocked(
  io: CliOutput,
  name: string,
  entry: LockEntry,
  commit: string | undefined,
  upstream?: UpstreamName,
  sources?: OpenedSources,
): Promise<CollectedSkill & { revision?: string; upstream?: UpstreamName }> {
  const { address, id } = lockEntrySource(entry, commit, process.env);
  const opened = await (sources?.open(address) ?? openInstallSource(address, io));
  try {
    const ids =
      sources !== undefined
        ? await sources.ids(address)
        : opened.only !== undefined
          ? [opened.only]
          : await opened.provider.discover();
    const look = upstream?.name ?? name;
    const wanted = id !== "" ? ids.find((i) => i === id) : ids.find((i) => i === look || i.split("/").pop() === look);
    if (wanted === undefined) throw new InstallError(`${name}: not found in ${opened.label}`, "INSTALL_DRIFT");
    const skill = await collectSkill(opened.provider, wanted);
    if (skill.name !== look)
      throw new InstallError(`${name}: the source's skill is now named ${JSON.stringify(skill.name)}`, "INSTALL_DRIFT");
    const revision = revisionOf(opened.provider);
    const result =
      upstream === undefined || skill.name === name
        ? skill
        : { ...renameSkill(skill, name), upstream: { name: skill.name, computedHash: computedHash(skill.files) } };
    return revision === undefined ? result : { ...result, revision };
  } finally {
    if (sources === undefined) await opened.close();
  }
}
