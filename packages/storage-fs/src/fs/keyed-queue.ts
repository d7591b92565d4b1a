/**
 * Serialises async work per key inside one process (a promise chain per key). Cheaper than the
 * cross-process lock and without a staleness window; the lock is still taken inside it.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /**
   * Runs `work` after every earlier task with the same key has settled.
   * @param key - what to serialise on (e.g. a tree directory)
   * @param work - the task
   * @returns the task's result
   */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}
