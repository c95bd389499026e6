/**
 * The last pages made, by a key that changes whenever what they show changes (a run's id, its
 * length, its failure): opening a run again costs no second layout of its chart.
 */
export class PageCache {
  readonly #pages = new Map<string, string>();
  readonly #size: number;

  constructor(size = 16) {
    this.#size = size;
  }

  /** The page for `key`, made by `make` when it is not kept. */
  async get(key: string, make: () => Promise<string>): Promise<string> {
    const kept = this.#pages.get(key);
    if (kept !== undefined) {
      this.#pages.delete(key);
      this.#pages.set(key, kept);
      return kept;
    }
    const page = await make();
    this.#pages.set(key, page);
    for (const old of this.#pages.keys()) {
      if (this.#pages.size <= this.#size) break;
      this.#pages.delete(old);
    }
    return page;
  }
}
