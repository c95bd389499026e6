import { asks, final, runAgent, scriptedModel, ToolRegistry, ToolSchemaError, toolCall } from "@agentloop/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hangGuard } from "../../../hang-guard.js";
import { mcpNameOf, mcpTools } from "../src/index.js";
import { connectInMemory } from "./connect.js";

let open: Awaited<ReturnType<typeof connectInMemory>> | undefined;
async function connect() {
  open = await connectInMemory();
  return open;
}
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe("mcpTools over an in-process server", () => {
  it("lists name, description and input schema as the server lists them", async () => {
    const { client } = await connect();
    const { tools: listed } = await client.listTools();
    const registry = new ToolRegistry(await mcpTools(client));
    const specs = registry.specs();
    expect(specs.map((spec) => spec.name)).toEqual(
      listed.map((each) => (each.name === "files.read" ? specs[3]?.name : each.name)),
    );
    for (const [index, each] of listed.entries()) {
      expect(specs[index]?.description).toBe(each.description);
      expect(specs[index]?.parameters).toEqual(each.inputSchema);
    }
  });

  it("maps a name the providers refuse, reversibly", async () => {
    const { client } = await connect();
    const tools = await mcpTools(client, { include: ["files.read"] });
    expect(tools.map((each) => each.name)).toEqual([expect.stringMatching(/^files_read_[0-9a-f]{8}$/)]);
    expect(tools[0] && mcpNameOf(tools[0])).toBe("files.read");
    const registry = new ToolRegistry(tools);
    await expect(registry.execute(tools[0]?.name ?? "", { path: "a.txt" })).resolves.toBe('"contents of a.txt"');
  });

  it("calls the server and shows text, structured and other content readably", async () => {
    const { client, calls } = await connect();
    const registry = new ToolRegistry(await mcpTools(client));
    await expect(registry.execute("get_weather", { city: "Pune" })).resolves.toBe(
      JSON.stringify(JSON.stringify({ city: "Pune", celsius: 30 })),
    );
    await expect(registry.execute("add", { a: 2, b: 3 })).resolves.toBe('{"sum":5}');
    await expect(registry.execute("picture", {})).resolves.toEqual([
      { type: "text", text: "here it is" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    ]);
    expect(calls).toEqual([{ name: "get_weather", args: { city: "Pune" } }]);
  });

  it("turns an isError result into an ERROR: observation", async () => {
    const { client } = await connect();
    const registry = new ToolRegistry(await mcpTools(client));
    await expect(registry.execute("fail", {})).resolves.toBe(
      "ERROR: fail failed: McpToolError: the archive is offline",
    );
  });

  it("never sends arguments that fail the listed schema", async () => {
    const { client, calls } = await connect();
    const registry = new ToolRegistry(await mcpTools(client));
    const out = await registry.execute("search", { filters: [{ field: "year", op: "gt", value: "2020" }] });
    expect(out).toMatch(/^ERROR: argument 'filters\[0\]\.op' must be one of "eq", "lt" \(got "gt"\)\. search expects/);
    await expect(registry.execute("search", { filters: [] })).resolves.toMatch(/must have at least 1 item/);
    await expect(registry.execute("get_weather", { town: "Pune" })).resolves.toMatch(
      /^ERROR: missing required argument 'city'/,
    );
    expect(calls).toEqual([]);
  });

  it("a hanging call gives an ERROR: observation within the tool's timeout", async () => {
    const { client } = await connect();
    const registry = new ToolRegistry(await mcpTools(client, { overrides: { hang: { timeoutMs: 100 } } }));
    // The call never settles on the server: an answer at all is the timeout's doing.
    await expect(registry.execute("hang", {})).resolves.toMatch(/^ERROR: hang timed out after 100 ms/);
  });

  it("a call ends when the run's signal aborts, and the server is told to cancel it", async () => {
    const { client, server, calls } = await connect();
    const cancelled: unknown[] = [];
    server.server.setNotificationHandler("notifications/cancelled", (notification) => {
      cancelled.push(notification.params);
    });
    const registry = new ToolRegistry(await mcpTools(client, { options: { timeoutMs: 600_000 } }));
    const run = new AbortController();
    const pending = registry.execute("hang", {}, { signal: run.signal });
    // Aborted once the call is on the server, so that there is a request to cancel there.
    await vi.waitFor(() => expect(calls.map((call) => call.name)).toContain("hang"), { timeout: hangGuard(45_000) });
    run.abort(new Error("the run was cancelled"));
    await expect(pending).resolves.toMatch(/^ERROR: hang failed: .*the run was cancelled/);
    await vi.waitFor(() => expect(cancelled).toEqual([expect.objectContaining({ requestId: expect.anything() })]), {
      timeout: hangGuard(45_000),
    });
  });

  it("a server that goes away mid-call gives an ERROR: observation", async () => {
    const { client, server, calls } = await connect();
    const registry = new ToolRegistry(await mcpTools(client, { options: { timeoutMs: 600_000 } }));
    const pending = registry.execute("hang", {});
    // Closed once the call is on the server: the call waits for an answer that cannot come.
    await vi.waitFor(() => expect(calls.map((call) => call.name)).toContain("hang"), { timeout: hangGuard(45_000) });
    void server.close();
    await expect(pending).resolves.toMatch(/^ERROR: hang failed: /);
  });

  it("takes its options from the annotations, and the caller's over them", async () => {
    const { client } = await connect();
    const registry = new ToolRegistry(await mcpTools(client));
    expect(registry.approvalRequired()).toEqual(["delete_file", "fail", "picture", "hang", "die"]);
    expect(registry.idempotentTools()).toEqual(["get_weather", "search", "add", expect.stringMatching(/^files_read_/)]);
    const chosen = new ToolRegistry(
      await mcpTools(client, {
        prefix: "wx_",
        include: (listed) => ["get_weather", "delete_file", "hang"].includes(listed.name),
        options: { needsApproval: false },
        overrides: { delete_file: { needsApproval: true }, get_weather: { repeatable: true } },
      }),
    );
    expect(chosen.specs().map((spec) => spec.name)).toEqual(["wx_get_weather", "wx_delete_file", "wx_hang"]);
    expect(chosen.approvalRequired()).toEqual(["wx_delete_file"]);
    expect(chosen.repeatableTools()).toEqual(["wx_get_weather"]);
  });

  it("refuses a listed schema that cannot be enforced, naming the tool", async () => {
    const client = {
      listTools: async () => ({
        tools: [{ name: "odd", inputSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } } }],
      }),
      callTool: async () => ({ content: [] }),
    };
    await expect(mcpTools(client as never)).rejects.toThrow(ToolSchemaError);
    await expect(mcpTools(client as never)).rejects.toThrow(/^odd: /);
  });

  it("runs in an agent: the model's calls reach the server and its answers come back", async () => {
    const { client, calls } = await connect();
    const registry = new ToolRegistry(await mcpTools(client, { include: ["get_weather", "add"] }));
    const model = scriptedModel([
      asks(toolCall("c1", "get_weather", { city: "Pune" }), toolCall("c2", "add", { a: 30, b: 1 })),
      final("It is 30 °C in Pune."),
    ]);
    const result = await runAgent("How hot is Pune?", model, registry);
    expect(result.status).toBe("done");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      JSON.stringify(JSON.stringify({ city: "Pune", celsius: 30 })),
      '{"sum":31}',
    ]);
    expect(calls).toEqual([{ name: "get_weather", args: { city: "Pune" } }]);
  });
});
