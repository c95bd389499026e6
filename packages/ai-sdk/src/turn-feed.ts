import type { UIMessageChunk } from "ai";

/**
 * The chunks of one chat's assistant message in progress, kept while its run goes on, so that any
 * number of clients can read them from the start: the one that asked and any that reconnect. The
 * run writes at its own pace; a reader that leaves stops only its own reading.
 */
export class TurnFeed {
  readonly #chunks: UIMessageChunk[] = [];
  readonly #waiting = new Set<() => void>();
  #done = false;

  /**
   * Starts a turn that goes on writing the message `previous` holds (the run was paused on a
   * decision), or the chunks of that message rebuilt from the log, under `messageId`: the id the
   * page posted, which the new stream's `start` carries. A reader from the start sees one message:
   * the earlier stream's finish is left out, and its `start` names the same id, so that a client
   * that resumes (which takes a new id for a new response) does not drop what came before.
   */
  static continuing(previous: TurnFeed | readonly UIMessageChunk[] | undefined, messageId: string): TurnFeed {
    const feed = new TurnFeed();
    if (previous === undefined) return feed;
    const chunks = previous instanceof TurnFeed ? previous.#chunks : previous;
    for (const chunk of chunks) {
      if (chunk.type === "finish") continue;
      feed.#chunks.push(chunk.type === "start" && messageId !== "" ? { ...chunk, messageId } : chunk);
    }
    return feed;
  }

  get done(): boolean {
    return this.#done;
  }

  /** How many chunks are kept. */
  get length(): number {
    return this.#chunks.length;
  }

  push(chunk: UIMessageChunk): void {
    this.#chunks.push(chunk);
    this.#wake();
  }

  end(): void {
    this.#done = true;
    this.#wake();
  }

  /** A stream of the chunks from index `from` on, following the turn until it ends; cancelling it stops only this reader. */
  read(from: number, filter: (chunk: UIMessageChunk) => boolean = () => true): ReadableStream<UIMessageChunk> {
    let next = from;
    let wake: (() => void) | undefined;
    let cancelled = false;
    return new ReadableStream<UIMessageChunk>({
      pull: async (controller) => {
        while (!cancelled) {
          while (next < this.#chunks.length) {
            const chunk = this.#chunks[next++] as UIMessageChunk;
            if (!filter(chunk)) continue;
            controller.enqueue(chunk);
            return;
          }
          if (this.#done) {
            controller.close();
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            this.#waiting.add(resolve);
          });
        }
      },
      cancel: () => {
        cancelled = true;
        if (wake !== undefined) {
          this.#waiting.delete(wake);
          wake();
        }
      },
    });
  }

  #wake(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
