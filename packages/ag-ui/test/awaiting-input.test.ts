import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Interrupt } from "@ag-ui/core";
import { askUserTool, MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler, QUESTION_REASON, type ServeOptions } from "../src/index.js";
import { input, post, readEvents } from "./fixture.js";
import { serveOnLoopback } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const TRIP = {
  type: "object" as const,
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
  additionalProperties: false,
};

/** An agent whose model asks where to, then answers (from reply `from` of that script, for a process that takes over). */
function tripAgent(store = new MemoryEventStore(), from = 0): ServeOptions & { seen: () => unknown } {
  const model = scriptedModel(
    [
      asks(toolCall("q1", "ask_user", { question: "Where to, and for how long?" })),
      final("Packing for 3 days in Lima."),
    ].slice(from),
  );
  const registry = new ToolRegistry([askUserTool({ answer: TRIP })]);
  return { model, registry, store, seen: () => model.seen.at(-1) };
}

async function refusal(response: Response): Promise<{ status: number; error: string }> {
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}
const resume = (threadId: string, runId: string, entries: unknown[]) =>
  post(input(threadId, runId, "", { resume: entries }));

describe("a question of askUserTool over AG-UI", () => {
  it("ends the run with an interrupt carrying the question and its responseSchema; HttpAgent's resume[] answers it, the run finishes with the answer as the tool's result", async () => {
    const serve = tripAgent();
    const server = await serveOnLoopback(agUiHandler(serve));
    closers.push(server.close);
    const agent = new HttpAgent({ url: server.url, threadId: "trip" });
    agent.addMessage({ id: "u1", role: "user", content: "Plan my trip." });
    let interrupts: Interrupt[] = [];
    await agent.runAgent(
      { runId: "run-1" },
      {
        onRunFinishedEvent: (params) => {
          if (params.outcome === "interrupt") interrupts = params.interrupts;
        },
      },
    );
    expect(interrupts).toEqual([
      {
        id: "q1",
        reason: QUESTION_REASON,
        message: "Where to, and for how long?",
        toolCallId: "q1",
        responseSchema: TRIP,
      },
    ]);
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(["q1"]);

    const seen: BaseEvent[] = [];
    let result: unknown;
    await agent.runAgent(
      { runId: "run-2", resume: [{ interruptId: "q1", status: "resolved", payload: { city: "Lima", days: 3 } }] },
      {
        onEvent: ({ event }) => {
          seen.push(event);
        },
        onRunFinishedEvent: (params) => {
          if (params.outcome === "success") result = params.result;
        },
      },
    );
    expect(result).toEqual({ status: "done", answer: "Packing for 3 days in Lima." });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(seen.find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: "q1",
      content: '{"city":"Lima","days":3}',
    });
    const log = await serve.store.read("trip");
    expect(log.filter((event) => event.type === "question.answered")).toMatchObject([
      { callId: "q1", answer: { city: "Lima", days: 3 } },
    ]);
    expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
    expect(JSON.stringify(serve.seen())).toContain('{\\"city\\":\\"Lima\\",\\"days\\":3}');
  });

  it("a handler started afresh on the same store takes the answer: the interrupt is read from the log", async () => {
    const store = new MemoryEventStore();
    await readEvents(await agUiHandler(tripAgent(store))(post(input("again", "r1", "Plan my trip."))));
    const later = agUiHandler(tripAgent(store, 1));
    const events = await readEvents(
      await later(
        resume("again", "r2", [{ interruptId: "q1", status: "resolved", payload: { city: "Lima", days: 3 } }]),
      ),
    );
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
  });

  it("an answer that does not fit the responseSchema is refused in one line before any event, nothing logged", async () => {
    const serve = tripAgent();
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("bad", "r1", "Plan my trip."))));
    const before = (await serve.store.read("bad")).length;
    const response = await handler(
      resume("bad", "r2", [{ interruptId: "q1", status: "resolved", payload: { city: "Lima" } }]),
    );
    const refused = await refusal(response);
    expect(refused.status).toBe(409);
    expect(refused.error).toMatch(/the answer to 'q1' does not fit/);
    expect(refused.error).not.toContain("\n");
    expect(await serve.store.read("bad")).toHaveLength(before);
  });

  it("a question is not cancelled nor resolved without a payload; a message while it waits, or an answer once it is answered, is refused", async () => {
    const serve = tripAgent();
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("q", "r1", "Plan my trip."))));
    expect(await refusal(await handler(resume("q", "r2", [{ interruptId: "q1", status: "cancelled" }])))).toEqual({
      status: 409,
      error: "interrupt 'q1' asks the user a question: resolve it with the answer as its payload",
    });
    expect(await refusal(await handler(resume("q", "r3", [{ interruptId: "q1", status: "resolved" }])))).toEqual({
      status: 409,
      error: "interrupt 'q1' asks the user a question: resolve it with the answer as its payload",
    });
    expect(await refusal(await handler(post(input("q", "r4", "Hello?"))))).toEqual({
      status: 409,
      error: "thread 'q' waits for answers to q1: answer them with resume[]",
    });
    const answer = [{ interruptId: "q1", status: "resolved", payload: { city: "Lima", days: 3 } }];
    await readEvents(await handler(resume("q", "r5", answer)));
    expect(await refusal(await handler(resume("q", "r6", answer)))).toEqual({
      status: 409,
      error: "thread 'q' has no interrupt 'q1': it waits for no decision",
    });
  });

  it("two resumes answering at once: one is taken, the other refused, and the log holds one answer", async () => {
    const serve = tripAgent();
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("race", "r1", "Plan my trip."))));
    const [a, b] = await Promise.all([
      handler(resume("race", "r2", [{ interruptId: "q1", status: "resolved", payload: { city: "Lima", days: 3 } }])),
      handler(resume("race", "r3", [{ interruptId: "q1", status: "resolved", payload: { city: "Oslo", days: 1 } }])),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    await Promise.all([a.text(), b.text()]);
    const answers = (await serve.store.read("race")).filter((event) => event.type === "question.answered");
    expect(answers).toHaveLength(1);
  });
});
