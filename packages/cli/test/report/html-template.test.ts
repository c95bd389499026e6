import { readFileSync } from "node:fs";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { html, raw } from "../../src/html/client/html.js";
import { clientBundle } from "../../src/html/client-bundle.js";

describe("the pages' one HTML template", () => {
  it("escapes every interpolation: text, numbers, each item of a list", () => {
    const name = `<img src=x onerror="alert('1')">&`;
    expect(html`<b title="${name}">${name}</b>`.text).toBe(
      '<b title="&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;</b>',
    );
    expect(html`<ol>${["<a>", 2].map((item) => html`<li>${item}</li>`)}</ol>`.text).toBe(
      "<ol><li>&lt;a&gt;</li><li>2</li></ol>",
    );
  });

  it("keeps what another template made, and text marked raw, as it is; writes nothing for null, undefined and false", () => {
    const inner = html`<i>${"<"}</i>`;
    expect(html`<p>${inner}${raw("<br>")}${null}${undefined}${false}</p>`.text).toBe("<p><i>&lt;</i><br></p>");
  });
});

describe("the pages' scripts", () => {
  it.each(["html/client/report-main.js", "studio/client/studio-run-main.js", "studio/client/studio-list-main.js"])(
    "%s is one script of compiled modules: no module left to fetch, nothing run from text",
    (entry) => {
      const script = clientBundle(entry);
      expect(script).not.toMatch(/^\s*(import|export)\b/m);
      expect(script).not.toMatch(/new Function|eval\(|DOMParser/);
      expect(script).not.toMatch(/<\/script/i);
      // It parses as a script (the page would stop at a syntax error).
      expect(() => new Script(script)).not.toThrow();
    },
  );

  it("are compiled from the package's TypeScript, not kept as text in template strings", () => {
    const source = readFileSync(new URL("../../src/studio/pages/run-page.ts", import.meta.url), "utf8");
    expect(source).not.toMatch(/const \w+_JS = `/);
  });
});
