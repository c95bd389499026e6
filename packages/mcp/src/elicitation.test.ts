import type { ToolAsk } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { AskingCalls, answerShape, replyOf } from "./elicitation.js";

type Handler = (request: { params: Record<string, unknown> }) => Promise<unknown>;

/** A client that keeps the handler it is given, or refuses it as a client without the capability does. */
function fakeClient(refuses = false) {
  const kept: { handler?: Handler } = {};
  const client = {
    setRequestHandler(_method: string, handler: Handler) {
      if (refuses) throw new Error("Client does not support elicitation capability");
      kept.handler = handler;
    },
  };
  return { client: client as never, kept };
}

const FORM = { mode: "form", message: "Which city?", requestedSchema: { type: "object", properties: {} } };

describe("AskingCalls", () => {
  it("asks through the one call in flight, and its answer is the server's reply", async () => {
    const { client, kept } = fakeClient();
    const calls = new AskingCalls();
    expect(calls.listen(client)).toBe(true);
    const asked: unknown[] = [];
    const ask: ToolAsk = async (question, schema) => {
      asked.push([question, schema]);
      return { city: "Lima" };
    };
    const reply = await calls.during(ask, new AbortController().signal, () =>
      (kept.handler as Handler)({ params: FORM }),
    );
    expect(reply).toEqual({ action: "accept", content: { city: "Lima" } });
    expect(asked).toEqual([["Which city?", answerShape(FORM.requestedSchema)]]);
  });

  it("refuses a question with no call in flight, or with several (it cannot be tied to one)", async () => {
    const { client, kept } = fakeClient();
    const calls = new AskingCalls();
    calls.listen(client);
    const handler = kept.handler as Handler;
    await expect(handler({ params: FORM })).rejects.toThrow("no tool call is in flight to ask this question under");
    const ask: ToolAsk = async () => ({});
    const both = calls.during(ask, new AbortController().signal, () =>
      calls.during(ask, new AbortController().signal, () => handler({ params: FORM })),
    );
    await expect(both).rejects.toThrow(/several tool calls are in flight on this client/);
  });

  it("a call whose attempt ended (its signal aborted) is no longer asked through, and its pending question is refused", async () => {
    const { client, kept } = fakeClient();
    const calls = new AskingCalls();
    calls.listen(client);
    const controller = new AbortController();
    const never: ToolAsk = () => new Promise(() => {});
    const pending = calls.during(never, controller.signal, () => (kept.handler as Handler)({ params: FORM }));
    controller.abort(new Error("asked"));
    await expect(pending).rejects.toThrow("asked");
    await expect((kept.handler as Handler)({ params: FORM })).rejects.toThrow(/no tool call is in flight/);
  });

  it("declines a URL-mode request, and does not listen on a client that did not declare elicitation", async () => {
    const { client, kept } = fakeClient();
    new AskingCalls().listen(client);
    await expect(
      (kept.handler as Handler)({ params: { mode: "url", message: "Open", url: "https://x" } }),
    ).resolves.toEqual({
      action: "decline",
    });
    expect(new AskingCalls().listen(fakeClient(true).client)).toBe(false);
    expect(new AskingCalls().listen({})).toBe(false);
  });
});

describe("replyOf", () => {
  it("is accept with the answer as content, or the decline or cancel the answer names", () => {
    expect(replyOf({ city: "Lima" })).toEqual({ action: "accept", content: { city: "Lima" } });
    expect(replyOf({ $action: "decline" })).toEqual({ action: "decline" });
    expect(replyOf({ $action: "cancel" })).toEqual({ action: "cancel" });
  });
});
