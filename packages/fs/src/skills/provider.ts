import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { SkillsRootError } from "./errors.js";
import { FlatRootLocator } from "./locators.js";
import { DEFAULT_MAX_FILE_BYTES } from "../floor/file-limits.js";
import { DEFAULT_MAX_LIST_DEPTH, DEFAULT_MAX_LIST_FILES } from "./skill-directory.js";
import { SkillDirectorySource, checkCount, type SkillDirectorySourceOptions } from "./skill-source.js";
import { watchSkillRoot, type WatchOptions } from "./watch.js";

export interface LocalFileSystemProviderOptions extends SkillDirectorySourceOptions {
  /** Provider name used in qualified ids and messages. Default `fs:<root directory name>`. */
  name?: string;
  /**
   * Defaults for `watch()` (debounce, depth, onReady, onError). Callers that subscribe without options, such as a
   * SkillRegistry, get these. Default: watch's own defaults.
   */
  watch?: WatchOptions;
}

/**
 * Skills in a local directory: each immediate subdirectory of `root` holding SKILL.md (or `skill.md`) is a skill whose
 * id is the directory name. Reads follow the one skill-directory policy (links inside the skill served, links leaving
 * it refused and reported) and are confined by the opened file; see docs/filesystem-provider.md.
 */
export class LocalFileSystemSkillProvider extends SkillDirectorySource {
  readonly name: string;
  /** The real path of the skills root. */
  readonly root: string;
  readonly #watchDefaults: WatchOptions;

  constructor(root: string, options: LocalFileSystemProviderOptions = {}) {
    super(new FlatRootLocator(checkRoot(root), locatorOptions(options)), {
      ...options,
      metadataIndex: options.metadataIndex === undefined ? undefined : path.resolve(options.metadataIndex),
    });
    this.root = realpathSync(root);
    this.name = options.name ?? `fs:${path.basename(this.root)}`;
    this.#watchDefaults = { ...options.watch };
  }

  /**
   * Watches the root; on changes, drops the affected skills from the cache and then reports their ids (debounced).
   * `options` add to the provider's `watch` defaults. Returns a function that stops watching.
   */
  watch(onChange: (ids: string[]) => void, options: WatchOptions = {}): () => void {
    return watchSkillRoot(
      this.root,
      (ids) => {
        for (const id of ids) this.invalidate(id);
        onChange(ids);
      },
      { ...this.#watchDefaults, ...options },
    );
  }
}

function checkRoot(root: string): string {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    throw new SkillsRootError("does not exist or cannot be read");
  }
  if (!isDirectory) throw new SkillsRootError("is not a directory");
  return realpathSync(root);
}

function locatorOptions(options: LocalFileSystemProviderOptions) {
  return {
    maxFileBytes: checkCount("maxFileBytes", options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, 0),
    maxListFiles: checkCount("maxListFiles", options.maxListFiles ?? DEFAULT_MAX_LIST_FILES, 1),
    maxListDepth: checkCount("maxListDepth", options.maxListDepth ?? DEFAULT_MAX_LIST_DEPTH, 0),
    refuseHardLinks: options.refuseHardLinks,
    sync: options.syncReads ?? true,
  };
}
