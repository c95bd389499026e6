import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepScreenshot, launchChromium } from "../browser.js";
import { fixture } from "../cli.js";
import { serve } from "../serving.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

describe("agentloop serve --ui-stream: the bundled chat page in Chromium", () => {
  it(
    "chats at /: the approval waits with Send disabled, Approve goes on to the answer, a reload shows the chat, a new chat replays the script",
    async () => {
      const store = mkdtempSync(join(tmpdir(), "agentloop-serve-page-"));
      const url = await serve([
        "--ui-stream",
        "--port",
        "0",
        "--tools",
        fixture("tools.mjs"),
        "--script",
        fixture("approval-full.json"),
        "--store",
        store,
      ]);
      const page = await browser.newPage({ viewport: { width: 760, height: 640 } });
      await page.goto(url);
      expect(await page.locator("h1").textContent()).toBe("agentloop chat");
      await page.getByLabel("Message").fill("Report Delhi's weather.");
      await page.getByRole("button", { name: "Send" }).click();
      const waiting = page.locator('.tool[data-state="approval-requested"]');
      await waiting.waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(await waiting.textContent()).toContain('send_report({"to":"ops@example.com"})');
      expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
      await keepScreenshot(page, "serve-chat-page-approval");

      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByText("It is 35 C in Delhi; the report went out.").waitFor();
      await page.locator('[data-status="ready"]').waitFor();
      expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(false);
      expect(await page.getByRole("alert").count()).toBe(0);

      // A reload starts from the chat the store holds (GET /api/chat/<id>/messages).
      await page.reload();
      await page.getByText("It is 35 C in Delhi; the report went out.").waitFor();
      expect(
        await page.locator(".message").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-role"))),
      ).toEqual(["user", "assistant"]);
      await keepScreenshot(page, "serve-chat-page-answered");

      // Another chat (a new tab at /) is a conversation of its own: the script starts over.
      const other = await browser.newPage({ viewport: { width: 760, height: 640 } });
      await other.goto(url);
      expect(new URL(other.url()).searchParams.get("chat")).not.toBe(new URL(page.url()).searchParams.get("chat"));
      await other.getByLabel("Message").fill("Report Delhi's weather.");
      await other.getByRole("button", { name: "Send" }).click();
      await other.locator('.tool[data-state="approval-requested"]').waitFor();
      expect(await other.getByRole("alert").count()).toBe(0);
      await other.close();
      await page.close();
    },
    hangGuard(120_000),
  );
});
