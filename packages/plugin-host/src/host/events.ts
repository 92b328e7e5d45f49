/** A push-to-pull bridge: the pool pushes events as they happen, the caller pulls them with `for await`. */
export class EventChannel<T> implements AsyncIterable<T> {
  #buffer: T[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  push(value: T): void {
    if (this.#ended) return;
    this.#buffer.push(value);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const next = this.#buffer.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}
