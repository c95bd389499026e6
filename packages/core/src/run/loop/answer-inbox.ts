/**
 * The answers of a run's performers in the order they came: the driver takes the next one, or
 * waits for it. Pushing never waits, so a performer's answer is kept however busy the driver is.
 */
export class AnswerInbox<T> {
  #items: T[] = [];
  #head = 0;
  #wake: ((item: T) => void) | null = null;

  /** Answers waiting to be taken. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    const wake = this.#wake;
    if (wake !== null) {
      this.#wake = null;
      wake(item);
      return;
    }
    this.#items.push(item);
  }

  /** The next answer: at once when one waits, else once one comes. */
  next(): T | Promise<T> {
    if (this.#head < this.#items.length) {
      const item = this.#items[this.#head++] as T;
      if (this.#head === this.#items.length) {
        this.#items = [];
        this.#head = 0;
      }
      return item;
    }
    return new Promise<T>((resolve) => {
      this.#wake = resolve;
    });
  }
}
