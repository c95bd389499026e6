import { type RecordedRequest, WireChecker } from "@agentloop/provider-testkit";

/** Every documented top-level field of a Messages request (https://docs.anthropic.com/en/api/messages). */
const REQUEST_FIELDS = [
  "cache_control",
  "container",
  "diagnostics",
  "inference_geo",
  "metadata",
  "output_config",
  "service_tier",
  "speed",
  "stop_sequences",
  "stream",
  "system",
  "temperature",
  "thinking",
  "tool_choice",
  "tools",
  "top_k",
  "top_p",
  "user_profile_id",
  "workspace_id",
];

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Checks a request against the Messages API wire format: the route, key and version headers,
 * known fields only, non-streaming, the system prompt in the top-level `system` field (API version
 * 2026-10-21 also takes system messages, but older versions and compatible servers do not, so the
 * adapter never sends them), turns that start with the user and alternate, block shapes per role,
 * tools with an object `input_schema`, and `tool_use` ids that are unique and answered in the very
 * next user turn by `tool_result` blocks that come first, in call order, exactly once. Returns the
 * problems, `[]` when there are none.
 */
export function checkMessagesRequest(request: RecordedRequest): string[] {
  const check = new WireChecker();
  if (request.method !== "POST" || request.path !== "/v1/messages") {
    check.fail("route", `expected POST /v1/messages, got ${request.method} ${request.path}`);
  }
  // SDK 1.x sends the key as a bearer token; earlier ones sent x-api-key. The API takes both.
  if (!request.headers["x-api-key"] && !/^Bearer \S+$/.test(request.headers.authorization ?? "")) {
    check.fail("headers", "no key: neither x-api-key nor 'Authorization: Bearer'");
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(String(request.headers["anthropic-version"]))) {
    check.fail("headers", "anthropic-version must be a dated API version");
  }
  const body = request.body;
  if (!check.object(body, "body")) return check.problems;
  check.keys(body, "body", ["model", "max_tokens", "messages"], REQUEST_FIELDS);
  check.string(body.model, "model", true);
  check.positiveInteger(body.max_tokens, "max_tokens");
  if ("stream" in body) check.oneOf(body.stream, "stream", [false]);
  if ("system" in body) check.string(body.system, "system", true);
  if ("tools" in body) checkTools(check, body.tools);
  else if ("tool_choice" in body) check.fail("tool_choice", "is only allowed with tools");
  if (check.array(body.messages, "messages", true)) checkTurns(check, body.messages);
  return check.problems;
}

function checkTools(check: WireChecker, tools: unknown): void {
  if (!check.array(tools, "tools", true)) return;
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const path = `tools[${index}]`;
    if (!check.object(tool, path)) continue;
    check.keys(tool, path, ["name", "input_schema"], ["description", "cache_control", "type"]);
    if (check.string(tool.name, `${path}.name`)) {
      if (!TOOL_NAME.test(tool.name)) check.fail(`${path}.name`, `must match ${TOOL_NAME}`);
      if (names.has(tool.name)) check.fail(`${path}.name`, "is not unique");
      names.add(tool.name);
    }
    if ("description" in tool) check.string(tool.description, `${path}.description`);
    check.toolSchema(tool.input_schema, `${path}.input_schema`);
  }
}

function checkTurns(check: WireChecker, turns: unknown[]): void {
  const seenIds = new Set<string>();
  let open: string[] = [];
  for (const [index, turn] of turns.entries()) {
    const path = `messages[${index}]`;
    if (!check.object(turn, path)) continue;
    check.keys(turn, path, ["role", "content"]);
    const expected = index % 2 === 0 ? "user" : "assistant";
    if (turn.role !== expected)
      check.fail(
        `${path}.role`,
        `must be '${expected}' (turns start with user and alternate), got ${JSON.stringify(turn.role)}`,
      );
    const blocks = blocksOf(check, turn.content, `${path}.content`);
    if (turn.role === "user") {
      checkUserBlocks(check, blocks, path, open);
      open = [];
    } else {
      open = checkAssistantBlocks(check, blocks, path, seenIds);
    }
  }
  const last = turns.at(-1) as { role?: unknown } | undefined;
  if (last?.role !== "user") check.fail("messages", "the last turn must be the user's");
}

function blocksOf(check: WireChecker, content: unknown, path: string): Record<string, unknown>[] {
  if (typeof content === "string") {
    check.string(content, path, true);
    return [{ type: "text", text: content }];
  }
  if (!check.array(content, path, true)) return [];
  return content.filter((block, index): block is Record<string, unknown> => check.object(block, `${path}[${index}]`));
}

function checkUserBlocks(check: WireChecker, blocks: Record<string, unknown>[], path: string, open: string[]): void {
  const answered: string[] = [];
  let textSeen = false;
  for (const [index, block] of blocks.entries()) {
    const at = `${path}.content[${index}]`;
    if (block.type === "text") {
      check.keys(block, at, ["type", "text"], ["cache_control", "citations"]);
      check.string(block.text, `${at}.text`, true);
      textSeen = true;
    } else if (block.type === "tool_result") {
      check.keys(block, at, ["type", "tool_use_id"], ["content", "is_error", "cache_control"]);
      if (textSeen) check.fail(at, "tool_result blocks must come before any text in the user turn");
      if ("content" in block) check.string(block.content, `${at}.content`);
      if ("is_error" in block) check.oneOf(block.is_error, `${at}.is_error`, [true, false]);
      if (check.string(block.tool_use_id, `${at}.tool_use_id`, true)) answered.push(block.tool_use_id);
    } else {
      check.fail(`${at}.type`, `a user turn takes text or tool_result blocks, got ${JSON.stringify(block.type)}`);
    }
  }
  if (JSON.stringify(answered) !== JSON.stringify(open)) {
    check.fail(
      path,
      `tool results ${JSON.stringify(answered)} must answer the previous turn's tool_use ids ${JSON.stringify(open)}, in order, once each`,
    );
  }
}

function checkAssistantBlocks(
  check: WireChecker,
  blocks: Record<string, unknown>[],
  path: string,
  seenIds: Set<string>,
): string[] {
  const ids: string[] = [];
  for (const [index, block] of blocks.entries()) {
    const at = `${path}.content[${index}]`;
    if (block.type === "text") {
      check.keys(block, at, ["type", "text"], ["citations"]);
      check.string(block.text, `${at}.text`, true);
    } else if (block.type === "tool_use") {
      check.keys(block, at, ["type", "id", "name", "input"], ["cache_control", "caller"]);
      check.string(block.name, `${at}.name`);
      check.object(block.input, `${at}.input`);
      if (!check.string(block.id, `${at}.id`, true)) continue;
      if (!TOOL_USE_ID.test(block.id)) check.fail(`${at}.id`, `must match ${TOOL_USE_ID}`);
      if (seenIds.has(block.id)) check.fail(`${at}.id`, `'${block.id}' is used by an earlier tool_use`);
      seenIds.add(block.id);
      ids.push(block.id);
    } else {
      check.fail(
        `${at}.type`,
        `an assistant turn sent back takes text or tool_use blocks, got ${JSON.stringify(block.type)}`,
      );
    }
  }
  return ids;
}
