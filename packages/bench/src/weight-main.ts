import { bundleWeight, coldImports, WEIGHT_FIXTURES } from "./metrics/weight.js";
import { bytes, loadAtEnd, machine, millis, progress, ratio, table } from "./report.js";

// Weight (`pnpm --filter @agentloop/bench bench:weight`): what a minimal agent sends to a browser,
// what a chat route loads on a server, and how long a fresh process takes to import core next to `ai`.
const tiny = process.argv.includes("--tiny");
const rounds = tiny ? 1 : 9;
const write = (text: string) => process.stdout.write(`${text}\n`);

progress("bundling the fixtures...");
const agent = await bundleWeight(WEIGHT_FIXTURES.minimalAgent, "browser");
const chat = await bundleWeight(WEIGHT_FIXTURES.chatHandler, "node");
const specifiers = ["@agentloop/core", "ai", "@agentloop/ai-sdk"];
progress(`cold imports, ${rounds} rounds of ${specifiers.join(", ")}...`);
const imports = await coldImports(specifiers, rounds);

const kb = (value: number) => `${(value / 1024).toFixed(1)} KB`;
const at = (name: string) => imports.get(name) ?? Number.NaN;
write(`# agentloop weight${tiny ? " (--tiny: one round)" : ""}\n`);
write(`${machine()}.`);
write(loadAtEnd());
write(
  table(
    [
      "bundle (esbuild, minified, ESM, split)",
      "before it runs: gzip",
      "minified",
      "with lazy chunks: gzip",
      "minified",
    ],
    [
      [
        "minimal agent, browser",
        kb(agent.initialGzip),
        kb(agent.initialBytes),
        kb(agent.totalGzip),
        kb(agent.totalBytes),
      ],
      ["chatHandler, node", kb(chat.initialGzip), kb(chat.initialBytes), kb(chat.totalGzip), kb(chat.totalBytes)],
    ],
  ),
);
write("");
write(
  table(
    ["minimal agent, minified bytes before it runs, by package", "minified"],
    [...agent.byPackage].sort((a, b) => b[1] - a[1]).map(([name, size]) => [name, bytes(size)]),
  ),
);
write("");
write(`chatHandler's packages before it runs: ${chat.initialPackages.join(", ")}.\n`);
write(
  table(
    [`cold import, median of ${rounds}`, "ms", "÷ ai"],
    specifiers.map((name) => [name, millis(at(name)), ratio(at(name) / at("ai"))]),
  ),
);
