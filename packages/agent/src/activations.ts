/**
 * One session's activations: skill id → the generation of the skill it was activated at. An activation counts only
 * while the skill is served at that same generation, so new content, a removal or a registry update deactivates a
 * skill in every session at once without the box visiting them.
 */
export class Activations {
  readonly #active = new Map<string, number>();
  readonly #current: (skillId: string) => number | undefined;

  /** `current`: the skill's generation now, or undefined when the box does not serve it. */
  constructor(current: (skillId: string) => number | undefined) {
    this.#current = current;
  }

  isActive(skillId: string): boolean {
    const at = this.#active.get(skillId);
    return at !== undefined && at === this.#current(skillId);
  }

  /** Active skill ids, in activation order. */
  list(): string[] {
    return [...this.#active.keys()].filter((id) => this.isActive(id));
  }

  any(): boolean {
    return this.list().length > 0;
  }

  /** Returns false when the box does not serve the skill (nothing is activated). */
  activate(skillId: string): boolean {
    const generation = this.#current(skillId);
    if (generation === undefined) return false;
    this.#active.set(skillId, generation);
    return true;
  }

  deactivate(skillId: string): boolean {
    return this.#active.delete(skillId);
  }

  clear(): void {
    this.#active.clear();
  }
}
