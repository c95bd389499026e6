import { describe, expect, it } from "vitest";
import { palette } from "./colors.js";
import type { Progress } from "./progress-line.js";
import { ProgressLine } from "./progress-line.js";

const rateLimited = {
  type: "model.failed",
  error: "model call 1 failed: 429 Rate limit reached",
  retryable: true,
  retryAfterMs: 1500,
  model: 0,
} as const;

const at = (state: string, steps: number, tokens: number): Progress => ({
  state,
  steps,
  maxSteps: 8,
  tokens,
  tokenBudget: 4000,
  tool: null,
});

describe("ProgressLine", () => {
  it("on a terminal rewrites one line in place, and leaves the last one when finished", () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text), live: true }, palette(false));
    line.update(at("callingModel", 0, 0));
    line.update(at("executingTools.runningTools", 1, 163));
    line.finish();
    expect(written.slice(0, 2).every((text) => text.startsWith("\r\u001b[2K") && !text.includes("\n"))).toBe(true);
    expect(written[1]).toMatch(/executingTools\.runningTools · step 1 of 8 · tokens 163 of 4000 · \d+\.\ds$/);
    expect(written.at(-2)?.startsWith("\r\u001b[2K✓ executingTools.runningTools")).toBe(true);
    expect(written.at(-1)).toBe("\n");
  });

  it("elsewhere writes a plain line per change, and none for the same progress twice", () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text), live: false }, palette(false));
    line.update(at("callingModel", 0, 0));
    line.update(at("callingModel", 0, 0));
    line.update({ ...at("done", 1, 99), tokenBudget: Number.POSITIVE_INFINITY });
    line.finish();
    expect(written).toEqual([
      "progress  callingModel · step 0 of 8 · tokens 0 of 4000\n",
      "progress  done · step 1 of 8 · tokens 99 of ∞\n",
    ]);
  });

  it("on a terminal prints streamed text in place of the line, which comes back below it", () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text), live: true }, palette(false));
    line.update(at("callingModel", 0, 0));
    line.text("Hello ");
    line.text("there.");
    line.update({ ...at("done", 1, 99), turn: 2 });
    line.finish();
    expect(written.slice(1, 5)).toEqual(["\r\u001b[2Kassistant ", "Hello ", "there.", "\n"]);
    expect(written[5]?.startsWith("\r\u001b[2K")).toBe(true);
    expect(written[5]).toMatch(/ turn 2 · done · step 1 of 8/);
  });

  it("elsewhere leaves streamed text out: the answer comes with the result", () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text), live: false }, palette(false));
    line.text("Hello");
    line.finish();
    expect(written).toEqual([]);
  });

  it("on a terminal prints a failed model attempt and the wait above the line, which comes back below them", () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text), live: true }, palette(false));
    line.update(at("callingModel", 0, 0));
    line.attempt(rateLimited);
    line.attempt({ type: "retry-waiting", step: 1, delayMs: 1500 });
    line.finish();
    expect(written.slice(1, 5)).toEqual([
      "\r\u001b[2Kfailed    model 0 · retryable, retry-after 1500 ms · model call 1 failed: 429 Rate limit reached\n",
      expect.stringContaining("\r\u001b[2K⠙ callingModel · step 0 of 8"),
      "\r\u001b[2Kwaiting   1.5 s before model call 1 is tried again\n",
      expect.stringContaining("\r\u001b[2K⠹ callingModel · step 0 of 8"),
    ]);
  });

  it("elsewhere prints each as a plain line of its own", () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text), live: false }, palette(false));
    line.attempt({ ...rateLimited, retryable: false, model: 1 });
    line.attempt({ type: "retry-waiting", step: 2, delayMs: 40 });
    expect(written).toEqual([
      "failed    model 1 · not retryable, retry-after 1500 ms · model call 1 failed: 429 Rate limit reached\n",
      "waiting   40 ms before model call 2 is tried again\n",
    ]);
  });
});
