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

  it("answers cancel, as the spec's result for a form no one filled in, with no call in flight or with several (it cannot be tied to one)", async () => {
    const { client, kept } = fakeClient();
    const calls = new AskingCalls();
    calls.listen(client);
    const handler = kept.handler as Handler;
    await expect(handler({ params: FORM })).resolves.toEqual({ action: "cancel" });
    const asked: string[] = [];
    const ask: ToolAsk = async (question) => {
      asked.push(question);
      return {};
    };
    const both = calls.during(ask, new AbortController().signal, () =>
      calls.during(ask, new AbortController().signal, () => handler({ params: FORM })),
    );
    await expect(both).resolves.toEqual({ action: "cancel" });
    expect(asked).toEqual([]);
  });

  it("a call whose attempt ended (its signal aborted) is no longer asked through, and its pending question is answered cancel", async () => {
    const { client, kept } = fakeClient();
    const calls = new AskingCalls();
    calls.listen(client);
    const controller = new AbortController();
    const never: ToolAsk = () => new Promise(() => {});
    const pending = calls.during(never, controller.signal, () => (kept.handler as Handler)({ params: FORM }));
    controller.abort(new Error("asked"));
    await expect(pending).resolves.toEqual({ action: "cancel" });
    await expect((kept.handler as Handler)({ params: FORM })).resolves.toEqual({ action: "cancel" });
  });

  it("keeps a handler the client set itself, and says so once", async () => {
    const own = async () => ({ action: "decline" });
    const handlers = new Map<string, Handler>([["elicitation/create", own]]);
    const client = {
      setRequestHandler(method: string, handler: Handler) {
        handlers.set(method, handler);
      },
      assertCanSetRequestHandler(method: string) {
        if (handlers.has(method)) throw new Error(`A request handler for ${method} already exists`);
      },
    };
    const warnings: string[] = [];
    expect(new AskingCalls().listen(client as never, (line) => warnings.push(line))).toBe(false);
    expect(handlers.get("elicitation/create")).toBe(own);
    expect(warnings).toEqual([
      "this MCP client answers elicitation/create with its own handler, which is kept: a server's questions during a call go to it, not to the run (pass a client without one to have them asked through the run)",
    ]);
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
