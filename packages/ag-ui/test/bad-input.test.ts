import { asks, final, toolCall } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { emailAgent, input, post, readEvents } from "./fixture.js";

const paused = () => emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);

async function refusal(response: Response): Promise<{ status: number; error: string }> {
  const body = (await response.json()) as { error: string };
  return { status: response.status, error: body.error };
}

describe("agUiHandler refuses what it cannot run, before any event", () => {
  it("a GET is 405", async () => {
    const handler = agUiHandler(paused().serve);
    const response = await handler(new Request("http://127.0.0.1/agent"));
    expect(await refusal(response)).toEqual({ status: 405, error: "an AG-UI agent takes a RunAgentInput by POST" });
  });

  it("a body that is not JSON is 400", async () => {
    const response = await agUiHandler(paused().serve)(post("{not json"));
    expect(await refusal(response)).toMatchObject({ status: 400, error: expect.stringContaining("not JSON") });
  });

  it("JSON that is not a RunAgentInput is 400 and runs nothing", async () => {
    const { serve, model } = paused();
    const response = await agUiHandler(serve)(post({ id: "chat-1", messages: [{ role: "user", parts: [] }] }));
    expect(await refusal(response)).toMatchObject({
      status: 400,
      error: expect.stringContaining("not a RunAgentInput"),
    });
    expect(model.seen).toEqual([]);
  });

  it("a thread id that cannot name a run is 400", async () => {
    const response = await agUiHandler(paused().serve)(post(input("../etc", "r", "hi")));
    expect(await refusal(response)).toMatchObject({ status: 400, error: expect.stringContaining("cannot name a run") });
  });

  it("an input whose last message is not the user's is 400", async () => {
    const body = { ...input("t", "r", "hi"), messages: [{ id: "a", role: "assistant", content: "Hello" }] };
    const response = await agUiHandler(paused().serve)(post(body));
    expect(await refusal(response)).toMatchObject({ status: 400, error: expect.stringContaining("no user message") });
  });

  it("a resume for an unknown thread is 404", async () => {
    const response = await agUiHandler(paused().serve)(
      post(input("nobody", "r", "", { resume: [{ interruptId: "e1", status: "resolved" }] })),
    );
    expect(await refusal(response)).toMatchObject({
      status: 404,
      error: "no thread 'nobody' is held",
    });
  });

  it("a resume for a call that is not waiting, or for another thread's call, is 409 and decides nothing", async () => {
    const { serve, sent } = paused();
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("a", "r1", "Email ana."))));
    const wrong = await handler(post(input("a", "r2", "", { resume: [{ interruptId: "x9", status: "resolved" }] })));
    expect(await refusal(wrong)).toEqual({
      status: 409,
      error: "thread 'a' has no interrupt 'x9': it waits for decisions on e1 only",
    });
    const partial = await handler(post(input("a", "r3", "", { resume: [] })));
    expect(await refusal(partial)).toEqual({
      status: 409,
      error: "thread 'a' waits for decisions on e1: answer them with resume[]",
    });
    const twice = await handler(
      post(
        input("a", "r4", "", {
          resume: [
            { interruptId: "e1", status: "resolved" },
            { interruptId: "e1", status: "cancelled" },
          ],
        }),
      ),
    );
    expect(await refusal(twice)).toEqual({ status: 409, error: "interrupt 'e1' is answered twice" });
    expect(sent).toEqual([]);
  });

  it("a decision for a call waiting in another conversation of the same handler is 409 (microsoft/agent-framework#6975)", async () => {
    const { serve, sent } = emailAgent([
      asks(toolCall("e1", "send_email", { to: "ana" })),
      asks(toolCall("e2", "send_email", { to: "bo" })),
    ]);
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("a", "r1", "Email ana."))));
    await readEvents(await handler(post(input("b", "r2", "Email bo."))));
    const crossed = await handler(post(input("a", "r3", "", { resume: [{ interruptId: "e2", status: "resolved" }] })));
    expect(await refusal(crossed)).toEqual({
      status: 409,
      error: "thread 'a' has no interrupt 'e2': it waits for decisions on e1 only",
    });
    expect(sent).toEqual([]);
  });

  it("a resume that answers only some of the open interrupts is 409: partial resumes are refused (umbraco/Umbraco.AI#211)", async () => {
    const { serve, sent } = emailAgent([
      asks(toolCall("e1", "send_email", { to: "ana" }), toolCall("e2", "send_email", { to: "bo" })),
    ]);
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("two", "r1", "Email ana and bo."))));
    const partial = await handler(
      post(input("two", "r2", "", { resume: [{ interruptId: "e2", status: "resolved" }] })),
    );
    expect(await refusal(partial)).toEqual({
      status: 409,
      error: "resume[] must answer every open interrupt; unanswered: e1",
    });
    expect(sent).toEqual([]);
  });

  it("a resume on a finished thread (a stale interrupt) is 409 (microsoft/agent-framework#6975)", async () => {
    const { serve } = emailAgent([final("Hello.")]);
    const handler = agUiHandler(serve);
    await readEvents(await handler(post(input("done", "r1", "Hi."))));
    const late = await handler(post(input("done", "r2", "", { resume: [{ interruptId: "e1", status: "resolved" }] })));
    expect(await refusal(late)).toEqual({
      status: 409,
      error: "thread 'done' has no interrupt 'e1': it waits for no decision",
    });
  });
});
