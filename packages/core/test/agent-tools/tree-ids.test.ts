import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  EventLogError,
  final,
  MemoryEventStore,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { startRun } from "../../src/run/api/run-agent.js";
import { makeMailRegistry } from "../../src/testing.js";

const pay = (id: string, to: string) => toolCall(id, "send_email", { to });

/** Two agent tools whose children each wait on one email; the parent calls both in one reply. */
function twoChildren(
  first: { call: string; child: string; to: string },
  second: { call: string; child: string; to: string },
) {
  const childOf = (name: string, spec: { child: string; to: string }) => {
    const { registry, sent: mailed } = makeMailRegistry();
    const model = scriptedModel([asks(pay(spec.child, spec.to)), final(`${name} done.`)]);
    return { tool: agentTool({ name, description: `${name}.`, model, registry }), mailed };
  };
  const friend = childOf("friend", first);
  const stranger = childOf("stranger", second);
  const registry = new ToolRegistry([friend.tool, stranger.tool]);
  const parent = scriptedModel([
    asks(toolCall(first.call, "friend", { task: "pay" }), toolCall(second.call, "stranger", { task: "pay" })),
    final("Paid."),
    final("Paid."),
  ]);
  const sentBy = () => [...friend.mailed.map((to) => `friend:${to}`), ...stranger.mailed.map((to) => `stranger:${to}`)];
  return { registry, parent, sentBy };
}

describe("chained ids of a tree", () => {
  it("never give two waiting calls one id: a call id holding / is written %2F, and one decision runs one call", async () => {
    const { registry, parent, sentBy } = twoChildren(
      { call: "a/x", child: "e", to: "$1 to a friend" },
      { call: "a", child: "x/e", to: "$9999 to attacker" },
    );
    const store = new MemoryEventStore();
    const paused = await runAgent("Pay.", parent, registry, { store, runId: "p" });
    expect(paused.status).toBe("awaiting_approval");
    const ids = (paused.pendingApprovals ?? []).map((call) => call.id);
    expect(ids).toEqual(["a%2Fx/e", "a/x%2Fe"]);
    expect(new Set(ids).size).toBe(2);
    // The id that named both before is now no waiting call's: refused, and nothing runs.
    await expect(
      resumeAgent("p", parent, registry, { store, decisions: { "a/x/e": { approved: true } } }),
    ).rejects.toThrow(/call 'a\/x\/e' waits for no decision \(calls that wait: 'a%2Fx\/e', 'a\/x%2Fe'\)/);
    expect(sentBy()).toEqual([]);
    const once = await resumeAgent("p", parent, registry, { store, decisions: { "a%2Fx/e": { approved: true } } });
    expect(sentBy()).toEqual(["friend:$1 to a friend"]);
    expect(once.status).toBe("awaiting_approval");
    expect(once.pendingApprovals?.map((call) => call.id)).toEqual(["a/x%2Fe"]);
  });

  it("writes % as %25, at any depth, and routes each decision to its one call", async () => {
    const { registry, parent, sentBy } = twoChildren(
      { call: "50%", child: "e%2F", to: "ana" },
      { call: "50%25", child: "e/", to: "bob" },
    );
    const store = new MemoryEventStore();
    const paused = await runAgent("Pay.", parent, registry, { store, runId: "p" });
    expect(paused.pendingApprovals?.map((call) => call.id)).toEqual(["50%25/e%252F", "50%2525/e%2F"]);
    const done = await resumeAgent("p", parent, registry, {
      store,
      decisions: { "50%25/e%252F": { approved: false }, "50%2525/e%2F": { approved: true } },
    });
    expect(done.status).toBe("done");
    expect(sentBy()).toEqual(["stranger:bob"]);
  });

  it("chains a grandchild's call whose ids hold / under its parents' escaped ids", async () => {
    const { registry: mail, sent } = makeMailRegistry();
    const grandchild = scriptedModel([asks(pay("e/1", "ana")), final("Mailed.")]);
    const mailer = agentTool({ name: "mailer", description: "Mails.", model: grandchild, registry: mail });
    const middle = scriptedModel([asks(toolCall("g/1", "mailer", { task: "mail ana" })), final("Mailed.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: middle, registry: new ToolRegistry([mailer]) }),
    ]);
    const parent = scriptedModel([asks(toolCall("r/1", "research", { task: "go" })), final("All done.")]);
    const store = new MemoryEventStore();
    const asked: string[] = [];
    const paused = await runAgent("Go.", parent, registry, {
      store,
      runId: "p",
      approve: (call) => {
        asked.push(call.id);
        return undefined;
      },
    });
    expect(asked).toEqual(["r%2F1/g%2F1/e%2F1"]);
    expect(paused.pendingApprovals?.map((call) => call.id)).toEqual(["r%2F1/g%2F1/e%2F1"]);
    const done = await resumeAgent("p", parent, registry, {
      store,
      decisions: { "r%2F1/g%2F1/e%2F1": { approved: true } },
    });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana"]);
  });

  it("lists the run's own call by its escaped id where a child's call has its id as chained id, and runs each by its own decision", async () => {
    const { registry: mail, sent: childSent } = makeMailRegistry();
    const child = scriptedModel([asks(pay("e", "child")), final("Child done.")]);
    const { registry, sent: ownSent } = makeMailRegistry();
    registry.add(agentTool({ name: "research", description: "R.", model: child, registry: mail }));
    const parent = scriptedModel([
      asks(toolCall("r", "research", { task: "go" }), pay("r/e", "parent")),
      final("Both."),
    ]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Go.", parent, registry, { store, runId: "p" });
    expect(paused.pendingApprovals?.map((call) => call.id)).toEqual(["r%2Fe", "r/e"]);
    const done = await resumeAgent("p", parent, registry, {
      store,
      decisions: { "r%2Fe": { approved: false }, "r/e": { approved: true } },
    });
    expect(done.status).toBe("done");
    expect(childSent).toEqual(["child"]);
    expect(ownSent).toEqual([]);
  });

  it("refuses a decision whose id names two waiting calls, and runs nothing", async () => {
    const { registry, sent } = makeMailRegistry();
    const parent = scriptedModel([asks(pay("a%2Fb", "one"), pay("a/b", "two")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Go.", parent, registry, { store, runId: "p" });
    await expect(
      resumeAgent("p", parent, registry, { store, decisions: { "a%2Fb": { approved: true } } }),
    ).rejects.toThrow(
      "run 'p': 'a%2Fb' names 2 waiting calls (the run's own call 'a%2Fb', the run's own call 'a/b'); give a decision for each by an id that names it alone",
    );
    expect(sent).toEqual([]);
  });
});

describe("decisions by id", () => {
  it("refuses two decisions for one call, by its id and its escaped id", async () => {
    const { registry, sent } = makeMailRegistry();
    const parent = scriptedModel([asks(pay("a/b", "one")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Go.", parent, registry, { store, runId: "p" });
    const decisions = { "a/b": { approved: true }, "a%2Fb": { approved: false } };
    await expect(resumeAgent("p", parent, registry, { store, decisions })).rejects.toThrow(
      "run 'p': two decisions name call 'a/b'",
    );
    expect(sent).toEqual([]);
  });

  it("routes a decision to a child's call whose id is a name of Object.prototype", async () => {
    const { registry: mail, sent } = makeMailRegistry();
    const child = scriptedModel([asks(pay("__proto__", "ana")), final("Sent.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: child, registry: mail }),
    ]);
    const parent = scriptedModel([asks(toolCall("constructor", "research", { task: "go" })), final("Done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Go.", parent, registry, { store, runId: "p" });
    expect(paused.pendingApprovals?.map((call) => call.id)).toEqual(["constructor/__proto__"]);
    const done = await resumeAgent("p", parent, registry, {
      store,
      decisions: JSON.parse('{ "constructor/__proto__": { "approved": true } }'),
    });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana"]);
  });
});

describe("a child's log", () => {
  it("is not taken over when a run under the child's id belongs to no one: the parent is refused, its model never told that run's answer", async () => {
    const { registry: mail } = makeMailRegistry();
    const child = scriptedModel([final("the child's own answer")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: child, registry: mail }),
    ]);
    const store = new MemoryEventStore();
    await runAgent("a private question", scriptedModel([final("private answer")]), mail, { store, runId: "p.r1" });
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "go" })), final("Done.")]);
    const refused = await runAgent("Go.", parent, registry, { store, runId: "p" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EventLogError);
    expect(String(refused)).toMatch(
      /run 'p\.r1' is already in the store as a run of its own, not as the child of call 'r1' of run 'p'/,
    );
    expect(parent.seen).toHaveLength(1);
    expect(child.seen).toHaveLength(0);
    expect(JSON.stringify(await store.read("p"))).not.toContain("private answer");
  });

  it("is not taken over when it is another parent's child", async () => {
    const { registry: mail } = makeMailRegistry();
    const child = scriptedModel([final("never asked")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: child, registry: mail }),
    ]);
    const store = new MemoryEventStore();
    // A child of run "q"'s call "r1", kept where run "p"'s call "r1" would keep its own.
    const other = { runId: "q", callId: "r1" };
    await startRun("q's task", scriptedModel([final("q's child's answer")]), mail, { store, runId: "p.r1" }, other);
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "go" })), final("Done.")]);
    await expect(runAgent("Go.", parent, registry, { store, runId: "p" })).rejects.toThrow(
      "run 'p.r1' is already in the store as the child of call 'r1' of run 'q', not as the child of call 'r1' of run 'p'",
    );
    expect(child.seen).toHaveLength(0);
    expect(JSON.stringify(await store.read("p"))).not.toContain("q's child's answer");
  });
});
