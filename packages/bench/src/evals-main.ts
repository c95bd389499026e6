import { byHand, largeEvaluation, weatherCases, withEvaluate } from "./metrics/evals.js";
import { bytes, count, loadAtEnd, machine, micros, millis, progress, table, title } from "./report.js";

// Evals (`pnpm --filter @agentloop/bench bench:evals`): what `evaluate` adds per case over running
// the same logged runs by hand, and the wall time and memory of a large scripted evaluation. The
// large evaluation runs first, so that the process's peak RSS is its own.
const tiny = process.argv.includes("--tiny");
const [cases, rounds, large, concurrency] = tiny ? [20, 1, 50, 4] : [200, 7, 1000, 16];

progress(`${large} cases at concurrency ${concurrency}...`);
const big = await largeEvaluation(large, concurrency);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const hand: number[] = [];
const evaluated: number[] = [];
const set = weatherCases(cases);
await byHand(set);
await withEvaluate(set);
for (let round = 0; round < rounds; round++) {
  progress(`overhead, round ${round + 1} of ${rounds}, ${cases} cases each way...`);
  hand.push(((await byHand(set)) * 1000) / cases);
  evaluated.push(((await withEvaluate(set)) * 1000) / cases);
}
const perHand = median(hand);
const perEval = median(evaluated);

const signedMicros = (value: number) => (value < 0 ? `−${micros(-value)}` : `+${micros(value)}`);
const write = (text: string) => process.stdout.write(`${text}\n`);
write(`${title("evals bench", tiny)}\n`);
write(`${machine()}, ${process.platform} ${process.arch}.`);
write(loadAtEnd());
write(
  table(
    ["weather case (3 model calls, 2 tools), scripted model", "µs per case", "median of"],
    [
      ["by hand: runAgent, read the log, compare the answer", micros(perHand), `${rounds} × ${count(cases)}`],
      ["evaluate, exactAnswer + toolCalls, concurrency 1", micros(perEval), `${rounds} × ${count(cases)}`],
      ["evaluate − by hand, per case", signedMicros(perEval - perHand), ""],
    ],
  ),
);
write("");
write(
  table(
    [`${count(large)} scripted cases, concurrency ${concurrency}`, "value"],
    [
      ["wall time", millis(big.ms)],
      ["most heap in use (sampled every 5 ms)", bytes(big.peakHeap)],
      ["peak RSS of the process", bytes(big.maxRss)],
    ],
  ),
);
