import {
  COMPACTION_MODES,
  type CompactionMode,
  countTokensSent,
  measureCompactionSteps,
  RESULT_CHARS,
  type TokenCount,
  TRIGGER_TOKENS,
} from "./metrics/compaction.js";
import { count, machine, micros, progress, ratio, table, title } from "./report.js";

// Context compaction (`pnpm --filter @agentloop/bench bench:compaction`): what a long run with
// 2 KB tool results sends without compaction and with each strategy, and what the harness costs
// per step with it on, the three side by side in one process.
const tiny = process.argv.includes("--tiny");
const [short, long] = tiny ? [20, 40] : [100, 1000];
const rounds = tiny ? 1 : 7;

const counts = new Map<CompactionMode, readonly [TokenCount, TokenCount]>();
for (const mode of COMPACTION_MODES) {
  progress(`tokens sent, compaction ${mode}, ${short} and ${long} steps...`);
  counts.set(mode, [await countTokensSent(mode, short), await countTokensSent(mode, long)]);
}
const perStep = new Map<number, ReadonlyMap<CompactionMode, number>>();
for (const steps of [short, long]) {
  progress(`per step, ${steps} steps, ${rounds} rounds of each...`);
  perStep.set(steps, await measureCompactionSteps(steps, rounds));
}

const label = (mode: CompactionMode) =>
  mode === "off" ? "no compaction" : mode === "trim" ? "trim" : "summarize (scripted summarizer)";
const write = (text: string) => process.stdout.write(`${text}\n`);
write(`${title("compaction bench", tiny)}\n`);
write(`${machine()}, ${process.platform} ${process.arch}.`);
write(
  `Tool results of ${count(RESULT_CHARS)} characters; compaction at ${count(TRIGGER_TOKENS)} prompt tokens, keepRecent 4.\n`,
);
const off = counts.get("off")?.[1].modelPrompts ?? Number.NaN;
write(
  table(
    [
      "run",
      `model prompts, ${count(short)} steps`,
      `model prompts, ${count(long)} steps`,
      `growth ${count(short)}→${count(long)}`,
      `no compaction ÷ this, ${count(long)} steps`,
      `summarizer prompts, ${count(long)} steps`,
      "compactions",
      `last prompt, ${count(long)} steps`,
      `run's tokens, ${count(long)} steps`,
    ],
    COMPACTION_MODES.map((mode) => {
      const [first, last] = counts.get(mode) as readonly [TokenCount, TokenCount];
      return [
        label(mode),
        count(first.modelPrompts),
        count(last.modelPrompts),
        ratio(last.modelPrompts / first.modelPrompts),
        ratio(off / last.modelPrompts),
        count(last.summarizerPrompts),
        count(last.compactions),
        count(last.lastPrompt),
        count(last.runTokens),
      ];
    }),
  ),
);
write("");
write(
  table(
    ["harness cost (model and tools answer at once)", ...COMPACTION_MODES.map(label)],
    [...perStep].map(([steps, byMode]) => {
      const base = byMode.get("off") ?? Number.NaN;
      return [
        `per step, ${count(steps)} steps (median of ${rounds})`,
        ...COMPACTION_MODES.map((mode) => {
          const value = byMode.get(mode) ?? Number.NaN;
          return mode === "off" ? micros(value) : `${micros(value)} (${ratio(value / base)})`;
        }),
      ];
    }),
  ),
);
