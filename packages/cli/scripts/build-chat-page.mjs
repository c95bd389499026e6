// Builds the repository's chat page (packages/ai-sdk/examples/chat-page: React and useChat) into
// dist/chat-page, which `agentloop serve --ui-stream` serves at /. The page ships as built files:
// an installed CLI needs no bundler and no React to serve it.
import { fileURLToPath } from "node:url";
import { build } from "vite";

// Found through the package's name (a workspace link to packages/ai-sdk), beside its built entry.
const root = fileURLToPath(new URL("../examples/chat-page/", import.meta.resolve("@agentloop/ai-sdk")));
const outDir = fileURLToPath(new URL("../dist/chat-page/", import.meta.url));

await build({
  configFile: false,
  root,
  logLevel: "warn",
  build: {
    outDir,
    emptyOutDir: true,
    reportCompressedSize: false,
    rolldownOptions: {
      // swr (under @ai-sdk/react) starts with "use client", which means nothing in a page of its own.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
});
