import { type RecordedRequest, WireChecker } from "@agentloop/provider-testkit";

/** Every documented top-level field of a Chat Completions request (https://platform.openai.com/docs/api-reference/chat/create). */
const REQUEST_FIELDS = [
  "audio",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
];

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Which server the fake plays: OpenAI itself refuses unknown message fields; the compatible servers
 * add a reasoning field to assistant messages (DeepSeek and llama.cpp `reasoning_content`; vLLM,
 * Ollama and LM Studio `reasoning`) and their own rules (see `checkServerRules`).
 */
export type Dialect = "openai" | "deepseek" | "vllm" | "ollama" | "llamacpp" | "lmstudio";

/** The assistant-message field each dialect takes reasoning back in (`undefined`: none). */
export const REASONING_FIELD: Readonly<Record<Dialect, "reasoning_content" | "reasoning" | undefined>> = {
  openai: undefined,
  deepseek: "reasoning_content",
  llamacpp: "reasoning_content",
  vllm: "reasoning",
  ollama: "reasoning",
  lmstudio: "reasoning",
};

/**
 * Checks a request against the Chat Completions wire format: the route and the bearer key, known
 * fields only, non-streaming, the system prompt first, each role's shape, function tools with an
 * object JSON Schema, and tool results that answer, exactly once and before anything else, each
 * call of the assistant message just before them. Returns the problems, `[]` when there are none.
 */
export function checkChatCompletionRequest(request: RecordedRequest, dialect: Dialect = "openai"): string[] {
  const check = new WireChecker();
  if (request.method !== "POST" || request.path !== "/v1/chat/completions") {
    check.fail("route", `expected POST /v1/chat/completions, got ${request.method} ${request.path}`);
  }
  if (!/^Bearer \S+$/.test(request.headers.authorization ?? ""))
    check.fail("headers", "no 'Authorization: Bearer' key");
  const body = request.body;
  if (!check.object(body, "body")) return check.problems;
  check.keys(body, "body", ["model", "messages"], REQUEST_FIELDS);
  check.string(body.model, "model", true);
  if ("stream" in body) check.oneOf(body.stream, "stream", [false, true]);
  if ("stream_options" in body && body.stream !== true) check.fail("stream_options", "is only allowed with stream");
  if ("n" in body) check.oneOf(body.n, "n", [1]);
  for (const field of ["max_completion_tokens", "max_tokens"]) {
    if (field in body) check.positiveInteger(body[field], field);
  }
  const hasTools = "tools" in body;
  if (hasTools) checkTools(check, body.tools);
  for (const field of ["tool_choice", "parallel_tool_calls"]) {
    if (field in body && !hasTools) check.fail(field, "is only allowed when tools are specified");
  }
  if (check.array(body.messages, "messages", true)) checkMessages(check, body.messages, REASONING_FIELD[dialect]);
  return check.problems;
}

function checkTools(check: WireChecker, tools: unknown): void {
  if (!check.array(tools, "tools", true)) return;
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const path = `tools[${index}]`;
    if (!check.object(tool, path)) continue;
    check.keys(tool, path, ["type", "function"]);
    check.oneOf(tool.type, `${path}.type`, ["function"]);
    const fn = tool.function;
    if (!check.object(fn, `${path}.function`)) continue;
    check.keys(fn, `${path}.function`, ["name"], ["description", "parameters", "strict"]);
    if (check.string(fn.name, `${path}.function.name`) && !TOOL_NAME.test(fn.name)) {
      check.fail(`${path}.function.name`, `must match ${TOOL_NAME}`);
    }
    if (typeof fn.name === "string" && names.has(fn.name)) check.fail(`${path}.function.name`, "is not unique");
    if (typeof fn.name === "string") names.add(fn.name);
    if ("description" in fn) check.string(fn.description, `${path}.function.description`);
    if ("parameters" in fn) check.toolSchema(fn.parameters, `${path}.function.parameters`);
  }
}

function checkMessages(check: WireChecker, messages: unknown[], reasoningField: string | undefined): void {
  const seenIds = new Set<string>();
  let pending: string[] = [];
  for (const [index, message] of messages.entries()) {
    const path = `messages[${index}]`;
    if (!check.object(message, path)) continue;
    const role = message.role;
    if (role !== "tool" && pending.length > 0) {
      check.fail(`${path}.role`, unansweredCalls(pending));
      pending = [];
    }
    if (role === "system") {
      check.keys(message, path, ["role", "content"], ["name"]);
      if (index !== 0) check.fail(path, "the system prompt must be the first message");
      check.string(message.content, `${path}.content`);
    } else if (role === "user") {
      check.keys(message, path, ["role", "content"], ["name"]);
      checkContent(check, message.content, `${path}.content`, ["text", "image_url", "file"]);
    } else if (role === "assistant") {
      pending = checkAssistant(check, message, path, seenIds, reasoningField);
    } else if (role === "tool") {
      check.keys(message, path, ["role", "tool_call_id", "content"]);
      checkContent(check, message.content, `${path}.content`, ["text"]);
      const id = message.tool_call_id;
      if (!check.string(id, `${path}.tool_call_id`, true)) continue;
      if (!pending.includes(id)) {
        check.fail(
          `${path}.role`,
          `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. ('${id}' answers no open call)`,
        );
      }
      pending = pending.filter((open) => open !== id);
    } else {
      check.fail(`${path}.role`, `unknown role ${JSON.stringify(role)}`);
    }
  }
  if (pending.length > 0) check.fail("messages", unansweredCalls(pending));
}

/**
 * A message's content as Chat Completions takes it: a string, or a non-empty list of parts of the
 * allowed types: `text`, `image_url` (`{ url }`, an http(s) or base64 `data:` URL, optional
 * `detail`), `file` (`{ file_data }` as a base64 `data:` URL, or `{ file_id }`, optional `filename`).
 */
function checkContent(check: WireChecker, content: unknown, path: string, types: readonly string[]): void {
  if (typeof content === "string") return;
  if (!check.array(content, path, true)) return;
  for (const [index, part] of content.entries()) {
    const at = `${path}[${index}]`;
    if (!check.object(part, at) || !check.oneOf(part.type, `${at}.type`, types)) continue;
    if (part.type === "text") {
      check.keys(part, at, ["type", "text"]);
      check.string(part.text, `${at}.text`);
    } else if (part.type === "image_url") {
      check.keys(part, at, ["type", "image_url"]);
      if (!check.object(part.image_url, `${at}.image_url`)) continue;
      check.keys(part.image_url, `${at}.image_url`, ["url"], ["detail"]);
      if (
        check.string(part.image_url.url, `${at}.image_url.url`, true) &&
        !/^(https?:|data:image\/[\w.+-]+;base64,)/.test(part.image_url.url)
      ) {
        check.fail(`${at}.image_url.url`, "must be an http(s) URL or a base64 data: URL of an image");
      }
    } else {
      check.keys(part, at, ["type", "file"]);
      if (!check.object(part.file, `${at}.file`)) continue;
      check.keys(part.file, `${at}.file`, [], ["file_data", "file_id", "filename"]);
      const data = part.file.file_data;
      if (data !== undefined && (typeof data !== "string" || !/^data:[\w.+-]+\/[\w.+-]+;base64,/.test(data))) {
        check.fail(`${at}.file.file_data`, "must be a base64 data: URL");
      }
    }
  }
}

/** OpenAI's own words for tool calls left without results. */
function unansweredCalls(ids: readonly string[]): string {
  return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(", ")}`;
}

function checkAssistant(
  check: WireChecker,
  message: Record<string, unknown>,
  path: string,
  seenIds: Set<string>,
  reasoningField: string | undefined,
): string[] {
  const optional = ["content", "tool_calls", "name", "refusal"];
  check.keys(message, path, ["role"], reasoningField === undefined ? optional : [...optional, reasoningField]);
  if (reasoningField !== undefined && reasoningField in message)
    check.string(message[reasoningField], `${path}.${reasoningField}`);
  const calls = message.tool_calls;
  if (message.content !== null && message.content !== undefined) check.string(message.content, `${path}.content`);
  if (calls === undefined) {
    if (typeof message.content !== "string") check.fail(path, "needs content when it has no tool_calls");
    return [];
  }
  if (!check.array(calls, `${path}.tool_calls`, true)) return [];
  const ids: string[] = [];
  for (const [index, call] of calls.entries()) {
    const at = `${path}.tool_calls[${index}]`;
    if (!check.object(call, at)) continue;
    check.keys(call, at, ["id", "type", "function"]);
    check.oneOf(call.type, `${at}.type`, ["function"]);
    if (check.string(call.id, `${at}.id`, true)) {
      if (seenIds.has(call.id)) check.fail(`${at}.id`, `'${call.id}' is used by an earlier call`);
      seenIds.add(call.id);
      ids.push(call.id);
    }
    if (!check.object(call.function, `${at}.function`)) continue;
    check.keys(call.function, `${at}.function`, ["name", "arguments"]);
    check.string(call.function.name, `${at}.function.name`);
    check.string(call.function.arguments, `${at}.function.arguments`);
  }
  return ids;
}
