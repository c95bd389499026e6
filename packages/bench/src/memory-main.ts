import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  final,
  InMemoryMemoryStore,
  type MemoryEmbed,
  type MemoryScope,
  type MemoryStore,
  runAgent,
  scriptedModel,
  ToolRegistry,
} from "@agentloop/core";
import { SqliteMemoryStore } from "@agentloop/sqlite";
import { median } from "./measure.js";
import { count, machine, micros, progress, ratio, table, title } from "./report.js";

// The cost of memory per turn (`pnpm --filter @agentloop/bench bench:memory`): a one-step turn with
// no memory, against the same turn recalling from a scope of 10,000 memories, lexically and with a
// stub embedder, in InMemoryMemoryStore and SqliteMemoryStore; and what a write costs. The model
// answers at once, so what is measured is the harness: the recall, its logging, the quoted message.
const tiny = process.argv.includes("--tiny");
const memories = tiny ? 200 : 10_000;
const turns = tiny ? 5 : 200;
const scope: MemoryScope = { resource: "user-1" };
/** A vocabulary of 1,000 made-up words (three syllables each), so that a word is in about 60 of 10,000 memories. */
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po"];
const WORDS = Array.from(
  { length: 1000 },
  (_, index) =>
    `${SYLLABLES[index % 10]}${SYLLABLES[Math.floor(index / 10) % 10]}${SYLLABLES[Math.floor(index / 100) % 10]}`,
);

/** The text of memory `index`: six words picked by a fixed rule, so every run writes the same data. */
function fact(index: number): string {
  const words: string[] = [];
  for (let at = 0; at < 6; at++) words.push(WORDS[(index * 7919 + at * 104_729) % WORDS.length] as string);
  return `The user mentioned ${words.join(" ")} (${index})`;
}

/** A stub embedder: 64 numbers from the text's characters, the cost of a call that returns at once. */
const stubEmbed: MemoryEmbed = (text) => {
  const vector = new Array<number>(64).fill(0);
  for (let at = 0; at < text.length; at++) {
    const slot = (text.charCodeAt(at) * 31 + at) & 63;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  return vector;
};

interface Subject {
  readonly name: string;
  readonly store: MemoryStore | null;
  /** Microseconds per write, median over the writes. */
  readonly writeMicros: number;
}

async function filled(name: string, store: MemoryStore): Promise<Subject> {
  progress(`${name}: writing ${count(memories)} memories...`);
  const times: number[] = [];
  for (let index = 0; index < memories; index++) {
    const start = performance.now();
    await store.put(scope, `fact-${index}`, fact(index));
    times.push((performance.now() - start) * 1000);
  }
  return { name, store, writeMicros: median(times) };
}

/** Microseconds per turn, median of `turns`, and the hits the last turn recalled. */
async function perTurn(store: MemoryStore | null): Promise<{ micros: number; searchMicros: number }> {
  const registry = new ToolRegistry();
  const times: number[] = [];
  const searches: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    // One word some memory holds, and one picked from the whole vocabulary.
    const held = fact((turn * 31) % memories).split(" ")[4];
    const task = `Do you remember my ${held} and ${WORDS[(turn * 53 + 11) % WORDS.length]}?`;
    const model = scriptedModel([final("Yes.")]);
    const options =
      store === null
        ? { tokenBudget: Number.POSITIVE_INFINITY }
        : {
            tokenBudget: Number.POSITIVE_INFINITY,
            memory: { store, scope, recall: 5 },
          };
    const start = performance.now();
    const result = await runAgent(task, model, registry, options);
    times.push((performance.now() - start) * 1000);
    if (result.status !== "done") throw new Error(`a turn ended ${result.status}`);
    if (store !== null) {
      const searchStart = performance.now();
      const hits = await store.search(scope, task, 5);
      searches.push((performance.now() - searchStart) * 1000);
      if (hits.length === 0) throw new Error("a recall found nothing: the bench measures nothing");
    }
  }
  return { micros: median(times), searchMicros: store === null ? 0 : median(searches) };
}

/** A difference in microseconds with its sign: noise can make a cost come out below nothing. */
function signed(value: number): string {
  return `${value < 0 ? "−" : "+"}${micros(Math.abs(value))}`;
}

const directory = mkdtempSync(join(tmpdir(), "agentloop-bench-memory-"));
try {
  const lexicalFile = new SqliteMemoryStore(join(directory, "lexical.db"));
  const embeddedFile = new SqliteMemoryStore(join(directory, "embedded.db"), { embed: stubEmbed });
  const subjects: Subject[] = [
    { name: "no memory", store: null, writeMicros: Number.NaN },
    await filled("InMemoryMemoryStore, lexical", new InMemoryMemoryStore()),
    await filled("InMemoryMemoryStore, stub embedder", new InMemoryMemoryStore({ embed: stubEmbed })),
    await filled("SqliteMemoryStore, lexical", lexicalFile),
    await filled("SqliteMemoryStore, stub embedder", embeddedFile),
  ];
  // One untimed round first, so that no store pays for the code's first compile in its numbers.
  for (const subject of subjects) await perTurn(subject.store);
  const rows: string[][] = [];
  let base = Number.NaN;
  for (const subject of subjects) {
    progress(`${subject.name}: ${turns} turns...`);
    const measured = await perTurn(subject.store);
    if (subject.store === null) base = measured.micros;
    rows.push([
      subject.name,
      micros(measured.micros),
      subject.store === null ? "" : `${signed(measured.micros - base)} (${ratio(measured.micros / base)})`,
      subject.store === null ? "" : micros(measured.searchMicros),
      subject.store === null ? "" : micros(subject.writeMicros),
    ]);
  }
  lexicalFile.close();
  embeddedFile.close();
  const write = (text: string) => process.stdout.write(`${text}\n`);
  write(`${title("memory bench", tiny)}\n`);
  write(`${machine()}, ${process.platform} ${process.arch}.`);
  write(
    `One scope of ${count(memories)} memories (six words each of 1,000, so a query's word is in about ${count((memories * 6) / 1000)} of them); a one-step turn recalling 5, median of ${count(turns)} turns; the stub embedder gives 64 numbers at once.\n`,
  );
  write(
    table(["turn", "per turn", "recall's cost (turn − no memory)", "one search alone", "one write (median)"], rows),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
