// A service process for the bench's Restate rows: the weather scenario as the workflow "weather"
// (and as "bare", the same `ctx.run` calls without agentloop),
// served over HTTP/2 on 127.0.0.1:$PORT. A run's task is JSON { steps, delayMs }: its length and
// how long each model call waits. Prints "listening <port>" once up.
import { createServer } from "node:http2";
import { contentText, type Model, type ModelReply } from "@agentloop/core";
import { agentWorkflow } from "@agentloop/restate";
import * as restate from "@restatedev/restate-sdk";
import { weatherRegistry } from "../harnesses/agentloop.js";
import { ANSWER, decide } from "../scenario.js";
import { bareWorkflow } from "./bare-workflow.js";

const model: Model = async (messages): Promise<ModelReply> => {
  const { steps, delayMs } = JSON.parse(contentText(messages[1]?.content ?? "{}")) as {
    steps: number;
    delayMs: number;
  };
  const call = await decide((messages.length - 2) / 2, steps, delayMs);
  if (call === null) return { content: ANSWER, toolCalls: [] };
  return { content: "", toolCalls: [{ id: call.id, name: call.name, args: call.args }] };
};

const weather = agentWorkflow({ name: "weather", model, registry: weatherRegistry() });
const bare = bareWorkflow(weatherRegistry());
const server = createServer(restate.endpoint().bind(weather).bind(bare).http2Handler());
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("listening\n"));
