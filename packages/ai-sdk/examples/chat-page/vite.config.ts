import { fileURLToPath } from "node:url";
import { chatHandler } from "@agentloop/ai-sdk";
import { openaiModel } from "@agentloop/openai";
import OpenAI from "openai";
import { defineConfig } from "vite";
import { weatherAgent } from "./agent.js";
import { chatApi } from "./chat-api.js";

// With OPENAI_API_KEY and AGENTLOOP_CHAT_MODEL (e.g. gpt-4.1-mini) set, a real model answers;
// otherwise the scripted one does, so the page runs without a key.
const name = process.env.AGENTLOOP_CHAT_MODEL;
const model = name === undefined ? undefined : openaiModel({ client: new OpenAI(), model: name });

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  server: { host: "127.0.0.1", port: 5173 },
  plugins: [chatApi(chatHandler(weatherAgent(model)))],
});
