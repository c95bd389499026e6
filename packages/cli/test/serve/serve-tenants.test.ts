import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";
import { scriptedServe, serve } from "../serving.js";

// `agentloop serve --authorize <module> --tenant-budget <file>`: a real server process, two tenants
// told apart by their bearer tokens, one held to a ceiling it has spent, the other not.

function files(budget: unknown) {
  const at = tempDir();
  const write = (name: string, value: unknown) => {
    const path = join(at, name);
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
    return path;
  };
  return {
    store: join(at, "runs"),
    script: write("script.json", [{ content: "Hello.", toolCalls: [] }]),
    pricing: write("pricing.json", { default: { input: 2, output: 8 } }),
    budget: write("budget.json", budget),
    write,
  };
}

/** Posts a chat's first message as the bearer of `token` (none: no credentials); its status and body. */
async function chat(url: string, id: string, token?: string) {
  const response = await fetch(new URL("/api/chat", url), {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ id, messages: [{ id: `${id}-u1`, role: "user", parts: [{ type: "text", text: "Hi." }] }] }),
  });
  return { status: response.status, body: await response.text() };
}

/** The run's logged events, from the JSONL store folder. */
function logOf(store: string, runId: string): { type: string; [key: string]: unknown }[] {
  return readFileSync(join(store, `${runId}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

const base = (f: ReturnType<typeof files>) => scriptedServe("--ui-stream", f.script, f.store);

describe("agentloop serve --authorize --tenant-budget", () => {
  it("each tenant's runs are its own, and one tenant's ceiling stops its turn, naming the ceiling, while the other's goes on", async () => {
    // acme may spend nothing more today; any other tenant ("*") has a dollar a day.
    const f = files({ acme: { costPerDay: 0 }, "*": { costPerDay: 1, costPerMonth: 10 } });
    const url = await serve([
      ...base(f),
      "--authorize",
      fixture("bearer-authorize.mjs"),
      "--tenant-budget",
      f.budget,
      "--pricing",
      f.pricing,
    ]);
    expect((await chat(url, "nobody")).status).toBe(401);

    const acme = await chat(url, "acme-1", "token-of-ana");
    expect(acme.status).toBe(200);
    expect(acme.body).toContain('"status":"cost_budget"');
    const acmeLog = logOf(f.store, "acme-1");
    expect(acmeLog[0]).toMatchObject({ type: "run.started", owner: { tenant: "acme", user: "ana" } });
    expect(acmeLog.find((event) => event.type === "ceiling.reached")).toMatchObject({ window: "day", limit: 0 });
    expect(acmeLog.some((event) => event.type === "model.replied")).toBe(false);
    const shown = await cli(["show", join(f.store, "acme-1.jsonl"), "--no-color"]);
    expect(shown.stdout).toContain("the owner's daily ceiling of $0.0000: $0.0000 spent");

    const globex = await chat(url, "globex-1", "token-of-bo");
    expect(globex.status).toBe(200);
    expect(globex.body).toContain('"delta":"Hello."');
    expect(globex.body).toContain('"status":"done"');
    expect(logOf(f.store, "globex-1")[0]).toMatchObject({ owner: { tenant: "globex", user: "bo" } });

    // Another tenant's chat is answered as one that does not exist; a message on its id is refused.
    const read = (id: string, token: string) =>
      fetch(new URL(`/api/chat/${id}/messages`, url), { headers: { authorization: `Bearer ${token}` } }).then(
        (response) => response.text(),
      );
    expect(await read("acme-1", "token-of-bo")).toBe("[]");
    expect(await read("acme-1", "token-of-ana")).not.toBe("[]");
    expect((await chat(url, "acme-1", "token-of-bo")).status).toBe(409);
  });

  it("holds a tenant to its ceiling on a Postgres store, whose spending every server on it shares", async () => {
    const f = files({ acme: { costPerDay: 0 }, "*": { costPerDay: 1 } });
    const postgres = new URL(inject("postgresUrl"));
    postgres.searchParams.set("schema", `cli_tenant_budget_${process.pid}_${Date.now().toString(36)}`);
    const args = ["--authorize", fixture("bearer-authorize.mjs"), "--tenant-budget", f.budget, "--pricing", f.pricing];
    const url = await serve([...base(f).slice(0, -1), postgres.href, ...args]);
    const acme = await chat(url, "acme-pg", "token-of-ana");
    expect(acme.body).toContain('"status":"cost_budget"');
    const globex = await chat(url, "globex-pg", "token-of-bo");
    expect(globex.body).toContain('"status":"done"');
    const shown = await cli(["show", `${postgres.href}#acme-pg`, "--no-color"]);
    expect(shown.stdout).toContain("the owner's daily ceiling of $0.0000: $0.0000 spent");
  });

  it("--authorize is every door's: AG-UI and MCP refuse a request without a known token 401 and take the tenant's", async () => {
    const f = files({});
    const authorize = ["--authorize", fixture("bearer-authorize.mjs")];
    const door = (protocol: string) => serve([protocol, ...base(f).slice(1), ...authorize]);
    const [agUi, mcp] = await Promise.all([door("--ag-ui"), door("--mcp")]);
    const agUiPost = (token?: string) =>
      fetch(agUi, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({
          threadId: "t1",
          runId: "r1",
          messages: [{ id: "u1", role: "user", content: "Hi." }],
          tools: [],
          context: [],
        }),
      });
    expect((await agUiPost()).status).toBe(401);
    const taken = await agUiPost("token-of-ana");
    expect(taken.status).toBe(200);
    expect(await taken.text()).toContain("RUN_FINISHED");
    const initialize = (token?: string) =>
      fetch(mcp, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
        }),
      });
    const refused = await initialize("token-of-nobody");
    expect([refused.status, await refused.text()]).toEqual([401, "sign in first"]);
    const signedIn = await initialize("token-of-bo");
    expect(signedIn.status).toBe(200);
    await signedIn.text();
  });

  it("refuses --tenant-budget without --authorize or --pricing, and a malformed file, each in one line", async () => {
    const f = files({ acme: { costPerDay: 1 } });
    const refused = async (args: string[]) => {
      const run = await cli(["serve", ...base(f), ...args]);
      expect(run.code).toBe(2);
      return run.stderr.trim();
    };
    expect(await refused(["--tenant-budget", f.budget, "--pricing", f.pricing])).toBe(
      "agentloop: --tenant-budget needs --authorize <module>: without a principal a request has no tenant to hold to a ceiling",
    );
    expect(await refused(["--tenant-budget", f.budget, "--authorize", fixture("bearer-authorize.mjs")])).toMatch(
      /^agentloop: --tenant-budget needs --pricing <file\.json>/,
    );
    const authorized = ["--authorize", fixture("bearer-authorize.mjs"), "--pricing", f.pricing];
    const bad = f.write("bad.json", { acme: { costPerDay: 1 }, globex: { costPerDay: "5" } });
    expect(await refused([...authorized, "--tenant-budget", bad])).toBe(
      `agentloop: --tenant-budget: ${bad}: the entry 'globex': costPerDay must be USD, a number 0 or more; got "5"`,
    );
    const unknown = f.write("unknown.json", { acme: { perDay: 1 } });
    expect(await refused([...authorized, "--tenant-budget", unknown])).toContain(
      `${unknown}: the entry 'acme' has 'perDay'`,
    );
    // A model with no price would hold nothing against the ceiling: refused at start, not at each chat.
    const otherPrices = f.write("other-prices.json", { "gpt-x": { input: 2, output: 8 } });
    expect(
      await refused([
        "--authorize",
        fixture("bearer-authorize.mjs"),
        "--pricing",
        otherPrices,
        "--tenant-budget",
        f.budget,
      ]),
    ).toBe(
      `agentloop: --tenant-budget: a tenant's ceiling needs a price for every model a run may call, and the pricing has none (nor a "default") for (unnamed model); add it to ${otherPrices}`,
    );
    const notJson = f.write("not.json", "{ acme");
    expect(await refused([...authorized, "--tenant-budget", notJson])).toContain(
      `--tenant-budget: ${notJson} is not JSON`,
    );
  });

  it("refuses an --authorize module that is missing or has no default function", async () => {
    const f = files({});
    const noDefault = f.write("no-default.mjs", "export const authorize = () => ({ tenant: 'acme' });\n");
    const missing = await cli(["serve", ...base(f), "--authorize", join(tempDir(), "nowhere.mjs")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--authorize: module '.*nowhere\.mjs' does not exist/);
    const wrong = await cli(["serve", ...base(f), "--authorize", noDefault]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("must export as its default a function (request)");
    const stdio = await cli([
      "serve",
      "--mcp",
      "--stdio",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      f.script,
      "--authorize",
      fixture("bearer-authorize.mjs"),
    ]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--authorize goes with HTTP");
  });
});
