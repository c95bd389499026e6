import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { type Model, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { final } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aHandler } from "../src/index.js";
import { clientOf, serveOnLoopback, userText } from "./a2a-served.js";

// Two servers on one store folder, as two processes behind one address: a task one of them drives
// is followed to its end by a client that resubscribes through the other.

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe("a2aHandler on two servers sharing a store", () => {
  it("resubscribing through the server that does not drive the task follows it to its end, from the log", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-a2a-two-"));
    closers.push(() => rmSync(directory, { recursive: true, force: true }));
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model: Model = async () => {
      await gate;
      return final("Slow hello.");
    };
    const servers = [];
    for (let index = 0; index < 2; index++) {
      const store = new JsonlEventStore(directory);
      const server = await serveOnLoopback((url) =>
        a2aHandler({
          model,
          registry: new ToolRegistry(),
          store,
          card: { name: "greeter", description: "Greets.", url },
        }),
      );
      closers.push(server.close);
      servers.push({ ...server, client: await clientOf(server.url) });
    }
    const [driver, other] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const working = (await driver.client.sendMessage({
      ...userText("Hi."),
      configuration: { returnImmediately: true },
    } as never)) as { id: string; status?: { state: TaskState } };
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const followed = (async () => {
      const events = [];
      for await (const event of other.client.resubscribeTask({ id: working.id, tenant: "" })) events.push(event);
      return events;
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const events = await followed;
    expect(events.map((event) => event.payload?.$case)).toEqual(["task", "artifactUpdate", "statusUpdate"]);
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
