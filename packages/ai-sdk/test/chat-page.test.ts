import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatHandler } from "@agentloop/ai-sdk";
import { type Browser, chromium } from "playwright-core";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangGuard } from "../../../hang-guard.js";
import { scriptedWeatherModel, weatherAgent } from "../examples/chat-page/agent.js";
import { chatApi } from "../examples/chat-page/chat-api.js";

const ROOT = fileURLToPath(new URL("../examples/chat-page/", import.meta.url));
const RESULTS = fileURLToPath(new URL("../test-results/", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";

// The answer's stream holds after its first word until the test lets it go: a reload lands mid-run.
let holding = false;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});
const model = scriptedWeatherModel(async () => {
  holding = true;
  await held;
});

let vite: ViteDevServer;
let browser: Browser;
let cache: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), "agentloop-vite-"));
  vite = await createServer({
    configFile: false,
    root: ROOT,
    cacheDir: cache,
    logLevel: "warn",
    server: { host: "127.0.0.1", port: 0, strictPort: false },
    plugins: [chatApi(chatHandler(weatherAgent(model)))],
  });
  await vite.listen();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu"],
    headless: true,
  });
}, hangGuard(120_000));

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  rmSync(cache, { recursive: true, force: true });
});

describe("the chat page (Vite + React + useChat) against chatHandler, in Chromium", () => {
  it(
    "asks, shows the tool call, takes the approval on the page, after a reload mid-answer shows the rest arrive, and after a later reload the earlier turn",
    async () => {
      const url = vite.resolvedUrls?.local[0];
      expect(url).toBeDefined();
      const page = await browser.newPage({ viewport: { width: 760, height: 640 } });
      await page.goto(url as string);
      await page.getByLabel("Message").fill("How hot is Pune?");
      await page.getByRole("button", { name: "Send" }).click();
      const waiting = page.locator('.tool[data-state="approval-requested"]');
      await waiting.waitFor();
      expect(await waiting.textContent()).toContain('get_weather({"city":"Pune"})');
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, "chat-page-approval.png"), fullPage: true });
      await page.getByRole("button", { name: "Approve" }).click();
      await page.locator('.tool[data-state="output-available"]').waitFor();
      await page.getByText(/^It$/).waitFor();
      expect(holding).toBe(true);
      await page.screenshot({ path: join(RESULTS, "chat-page-approved.png"), fullPage: true });

      // A reload while the answer is still being written: the page resumes the turn from the server.
      await page.reload();
      await page.locator('.tool[data-state="output-available"]').waitFor();
      await page.getByText(/^It$/).waitFor();
      release();
      await page.getByText("It is 30 °C (86 °F) in Pune right now.").waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      await page.screenshot({ path: join(RESULTS, "chat-page-resumed.png"), fullPage: true });
      expect(await page.locator(".message.assistant").count()).toBe(1);
      expect(await page.getByRole("alert").count()).toBe(0);

      // A reload after the turn: the page starts from the chat the store holds (GET <api>/<chat id>/messages).
      await page.reload();
      await page.getByText("It is 30 °C (86 °F) in Pune right now.").waitFor();
      await page.getByText("How hot is Pune?").waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(
        await page.locator(".message").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-role"))),
      ).toEqual(["user", "assistant"]);
      expect(await page.locator(".tool").textContent()).toContain('get_weather({"city":"Pune"}) — output-available');
      await page.screenshot({ path: join(RESULTS, "chat-page-reloaded.png"), fullPage: true });
      await page.close();
    },
    hangGuard(120_000),
  );

  it(
    "asks which city when none is named, shows the question again after a reload, takes the answer on the page with addToolOutput, and goes on to the answer",
    async () => {
      release();
      const page = await browser.newPage({ viewport: { width: 760, height: 640 } });
      await page.goto(vite.resolvedUrls?.local[0] as string);
      await page.getByLabel("Message").fill("How hot is it?");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByText("Which city?").waitFor();
      await page.locator('[data-status="ready"]').waitFor();

      // A reload while the question waits: the page shows it again from the store.
      await page.reload();
      await page.getByText("Which city?").waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
      await page.screenshot({ path: join(RESULTS, "chat-page-question.png"), fullPage: true });
      await page.getByLabel("Answer").fill("Lima");
      await page.getByRole("button", { name: "Answer" }).click();

      await page.locator('.tool[data-state="approval-requested"]').waitFor();
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByText("It is 19 °C (66.2 °F) in Lima right now.").waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(await page.locator(".tool").first().textContent()).toContain(
        'ask_user({"question":"Which city?"}) — output-available',
      );
      expect(await page.getByRole("alert").count()).toBe(0);
      await page.close();
    },
    hangGuard(120_000),
  );

  it(
    "disables Send while an approval waits, so that a message typed then is never sent, and a Deny goes through",
    async () => {
      release();
      const page = await browser.newPage({ viewport: { width: 760, height: 640 } });
      const posts: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST") posts.push(request.postData() ?? "");
      });
      await page.goto(vite.resolvedUrls?.local[0] as string);
      const send = page.getByRole("button", { name: "Send" });
      await page.getByLabel("Message").fill("How hot is Delhi?");
      await send.click();
      await page.locator('.tool[data-state="approval-requested"]').waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(await send.isDisabled()).toBe(true);
      expect(await page.locator(".waiting").textContent()).toContain("The agent waits for you");
      await page.screenshot({ path: join(RESULTS, "chat-page-waiting.png"), fullPage: true });

      // Enter in the message box submits nothing while the run waits.
      await page.getByLabel("Message").fill("Never mind, how about Oslo?");
      await page.getByLabel("Message").press("Enter");
      expect(posts).toHaveLength(1);

      await page.getByRole("button", { name: "Deny" }).click();
      await page.getByText(/^The weather service said: ERROR: the user denied this call to get_weather/).waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(posts).toHaveLength(2);
      expect(posts[1]).toContain('"approved":false');
      expect(await page.locator(".waiting").count()).toBe(0);
      expect(await send.isDisabled()).toBe(false);
      expect(await page.getByRole("alert").count()).toBe(0);

      // The message kept in the box goes once the run waits no more.
      await send.click();
      await page.locator('.tool[data-state="approval-requested"]').nth(0).waitFor();
      expect(posts).toHaveLength(3);
      expect(posts[2]).toContain("Never mind, how about Oslo?");
      await page.close();
    },
    hangGuard(120_000),
  );
});
