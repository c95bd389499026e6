/**
 * The last pages made, by a key that changes whenever what they show changes (a run's id, its
 * length, its failure): opening a run again costs no second layout of its chart. It keeps the
 * pages' data too (`PageCache<ReportData>`), so that a page's first update after it opens does
 * not fold the whole log again to say that nothing changed.
 */
export class PageCache<T = string> {
  readonly #pages = new Map<string, T>();
  readonly #size: number;

  constructor(size = 16) {
    this.#size = size;
  }

  /** The page for `key`, made by `make` when it is not kept. */
  async get(key: string, make: () => T | Promise<T>): Promise<T> {
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
