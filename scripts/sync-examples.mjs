// Copies each example file into the README and docs/ wherever a `<!-- example: path -->` marker
// stands above a ts block, so that the samples stay the code the tests compile and run.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

const documents = [
  "README.md",
  ...readdirSync("docs", { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f.split("\\").join("/")}`),
  ...readdirSync("packages")
    .map((name) => `packages/${name}/README.md`)
    .filter((f) => existsSync(f)),
];
for (const document of documents) {
  const text = readFileSync(document, "utf8");
  const synced = text.replace(
    /<!-- example: (\S+) -->\n```ts\n[\s\S]*?```/g,
    (_, path) => `<!-- example: ${path} -->\n\`\`\`ts\n${readFileSync(path, "utf8")}\`\`\``,
  );
  if (synced !== text) {
    writeFileSync(document, synced);
    console.log(`synced ${document}`);
  }
}
