import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM, requireChromium } from "./chromium.js";

/** Screenshots are kept here (git-ignored) as artefacts of the run. */
export const RESULTS = fileURLToPath(new URL("../test-results/", import.meta.url));

/** Debian's Chromium driven by playwright-core: no browser is downloaded, none is fetched from the network. */
export async function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"], headless: true });
}

/** Keeps a full-page screenshot of `page` as `test-results/<name>.png` and returns its path. */
export async function keepScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS, { recursive: true });
  const path = join(RESULTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Pairs of elements matching `selector` whose boxes overlap (by more than a pixel each way), one
 * inside the other aside: text drawn over other text on the page.
 */
export async function overlapsOf(page: Page, selector: string): Promise<string[]> {
  return (await page.evaluate(`(${OVERLAPS})(${JSON.stringify(selector)})`)) as string[];
}

// Runs in the page (the tests are compiled without the DOM's types, so it is kept as text).
const OVERLAPS = `(css) => {
  const boxes = [...document.querySelectorAll(css)]
    .map((element) => ({ element, box: element.getBoundingClientRect() }))
    .filter(({ box }) => box.width > 0 && box.height > 0);
  const found = [];
  const name = (element) => element.tagName.toLowerCase() + "." + element.className + ' "' + (element.textContent || "").slice(0, 30) + '"';
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      if (a.element.contains(b.element) || b.element.contains(a.element)) continue;
      const x = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const y = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (x > 1 && y > 1) found.push(name(a.element) + " overlaps " + name(b.element));
    }
  }
  return found;
}`;
