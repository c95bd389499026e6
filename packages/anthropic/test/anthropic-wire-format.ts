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
 * known fields only, the system prompt in the top-level `system` field (API version 2026-10-21 also
 * takes system messages, but older versions and compatible servers do not, so the adapter never
 * sends them), turns that start with the user, alternate and are not empty, block shapes per role
 * (no blank text), tools with an object `input_schema`, and `tool_use` ids that are unique and
 * answered in the very next user turn by `tool_result` blocks that come first, in call order,
 * exactly once. Where the API has words for a problem, the problem is in its words. Returns the
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
  if ("stream" in body) check.oneOf(body.stream, "stream", [false, true]);
  if ("system" in body) checkSystem(check, body.system);
  checkCacheMarks(check, body);
  if ("tools" in body) checkTools(check, body.tools);
  else if ("tool_choice" in body) check.fail("tool_choice", "is only allowed with tools");
  if (check.array(body.messages, "messages", true)) checkTurns(check, body.messages);
  return check.problems;
}

/** The system prompt: a string, or text blocks (the form that takes a cache mark). */
function checkSystem(check: WireChecker, system: unknown): void {
  if (typeof system === "string" || !Array.isArray(system)) {
    check.string(system, "system", true);
    return;
  }
  if (system.length === 0) check.fail("system", "must not be an empty list");
  for (const [index, block] of system.entries()) {
    const at = `system[${index}]`;
    if (!check.object(block, at)) continue;
    check.keys(block, at, ["type", "text"], ["cache_control", "citations"]);
    if (block.type !== "text") check.fail(`${at}.type`, `must be "text", got ${JSON.stringify(block.type)}`);
    checkText(check, block);
  }
}

/** The API takes at most four cache marks in one request, each `{ type: "ephemeral" }` with an optional ttl. */
function checkCacheMarks(check: WireChecker, body: Record<string, unknown>): void {
  const marks: unknown[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) collect(item);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if ("cache_control" in record) marks.push(record.cache_control);
      for (const [key, item] of Object.entries(record)) if (key !== "input_schema" && key !== "input") collect(item);
    }
  };
  collect({ tools: body.tools, system: body.system, messages: body.messages });
  if (marks.length > 4) {
    check.fail("cache_control", `A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`);
  }
  for (const mark of marks) {
    const ok =
      typeof mark === "object" &&
      mark !== null &&
      (mark as { type?: unknown }).type === "ephemeral" &&
      Object.keys(mark).every((key) => key === "type" || key === "ttl");
    if (!ok) check.fail("cache_control", `must be { type: "ephemeral", ttl? }, got ${JSON.stringify(mark)}`);
  }
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
    const blocks = blocksOf(check, turn.content, path);
    if (turn.role === "user") {
      checkUserBlocks(check, blocks, path, open, `messages.${index - 1}`);
      open = [];
    } else {
      open = checkAssistantBlocks(check, blocks, path, seenIds);
    }
  }
  if (open.length > 0) check.fail(`messages.${turns.length - 1}`, unanswered(open));
  const last = turns.at(-1) as { role?: unknown } | undefined;
  if (last?.role !== "user") check.fail("messages", "the last turn must be the user's");
}

function blocksOf(check: WireChecker, content: unknown, path: string): Record<string, unknown>[] {
  const empty = typeof content === "string" ? content === "" : Array.isArray(content) && content.length === 0;
  if (empty) {
    const at = path.replace(/^messages\[(\d+)\]$/, "messages.$1");
    check.fail(at, "all messages must have non-empty content except for the optional final assistant message");
    return [];
  }
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!check.array(content, `${path}.content`)) return [];
  return content.filter((block, index): block is Record<string, unknown> =>
    check.object(block, `${path}.content[${index}]`),
  );
}

/** The API's own words for tool calls whose results are not all in the next user turn. */
function unanswered(ids: readonly string[]): string {
  return `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
}

/**
 * An `image` block (source `base64` of JPEG, PNG, GIF or WebP, or `url`) or a `document` block
 * (source `base64` of a PDF, `url`, or `text` of plain text; optional `title`), as the Messages API takes them.
 */
function checkMedia(check: WireChecker, block: Record<string, unknown>, at: string): void {
  check.keys(block, at, ["type", "source"], block.type === "document" ? ["title", "cache_control"] : ["cache_control"]);
  const source = block.source;
  if (!check.object(source, `${at}.source`)) return;
  if (source.type === "url") {
    check.keys(source, `${at}.source`, ["type", "url"]);
    if (check.string(source.url, `${at}.source.url`, true) && !/^https?:/.test(source.url)) {
      check.fail(`${at}.source.url`, "must be an http(s) URL");
    }
    return;
  }
  const media = block.type === "image" ? ["image/jpeg", "image/png", "image/gif", "image/webp"] : ["application/pdf"];
  if (source.type === "base64") {
    check.keys(source, `${at}.source`, ["type", "media_type", "data"]);
    check.oneOf(source.media_type, `${at}.source.media_type`, media);
    if (check.string(source.data, `${at}.source.data`, true) && !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data)) {
      check.fail(`${at}.source.data`, "must be base64");
    }
  } else if (source.type === "text" && block.type === "document") {
    check.keys(source, `${at}.source`, ["type", "media_type", "data"]);
    check.oneOf(source.media_type, `${at}.source.media_type`, ["text/plain"]);
    check.string(source.data, `${at}.source.data`);
  } else {
    check.fail(`${at}.source.type`, `unknown source type ${JSON.stringify(source.type)}`);
  }
}

/** The API's refusal of text blocks that are empty or only whitespace. */
function checkText(check: WireChecker, block: Record<string, unknown>): void {
  if (typeof block.text !== "string")
    check.fail("messages", `text must be a string, got ${JSON.stringify(block.text)}`);
  else if (block.text.trim() === "") check.fail("messages", "text content blocks must be non-empty");
}

function checkUserBlocks(
  check: WireChecker,
  blocks: Record<string, unknown>[],
  path: string,
  open: string[],
  callsAt: string,
): void {
  const answered: string[] = [];
  let textSeen = false;
  for (const [index, block] of blocks.entries()) {
    const at = `${path}.content[${index}]`;
    if (block.type === "text") {
      check.keys(block, at, ["type", "text"], ["cache_control", "citations"]);
      checkText(check, block);
      textSeen = true;
    } else if (block.type === "tool_result") {
      check.keys(block, at, ["type", "tool_use_id"], ["content", "is_error", "cache_control"]);
      if (textSeen) check.fail(at, "tool_result blocks must come before any text in the user turn");
      if ("content" in block && typeof block.content !== "string" && check.array(block.content, `${at}.content`)) {
        for (const [inner, part] of block.content.entries()) {
          const partAt = `${at}.content[${inner}]`;
          if (!check.object(part, partAt)) continue;
          if (part.type === "text") checkText(check, part);
          else if (part.type === "image" || part.type === "document") checkMedia(check, part, partAt);
          else
            check.fail(
              `${partAt}.type`,
              `a tool result takes text, image or document blocks, got ${JSON.stringify(part.type)}`,
            );
        }
      } else if ("content" in block) check.string(block.content, `${at}.content`);
      if ("is_error" in block) check.oneOf(block.is_error, `${at}.is_error`, [true, false]);
      if (check.string(block.tool_use_id, `${at}.tool_use_id`, true)) answered.push(block.tool_use_id);
    } else if (block.type === "image" || block.type === "document") {
      checkMedia(check, block, at);
      textSeen = true;
    } else {
      check.fail(
        `${at}.type`,
        `a user turn takes text, image, document or tool_result blocks, got ${JSON.stringify(block.type)}`,
      );
    }
  }
  const missing = open.filter((id) => !answered.includes(id));
  const stray = answered.filter((id, at) => !open.includes(id) || answered.indexOf(id) !== at);
  if (missing.length > 0) check.fail(callsAt, unanswered(missing));
  if (stray.length > 0) {
    check.fail(
      `${path.replace(/^messages\[(\d+)\]$/, "messages.$1")}.content`,
      `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
    );
  }
  if (missing.length === 0 && stray.length === 0 && JSON.stringify(answered) !== JSON.stringify(open)) {
    check.fail(
      path,
      `this suite's check: tool results ${JSON.stringify(answered)} are not in call order ${JSON.stringify(open)}`,
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
      check.keys(block, at, ["type", "text"], ["cache_control", "citations"]);
      checkText(check, block);
    } else if (block.type === "thinking") {
      check.keys(block, at, ["type", "thinking", "signature"]);
      check.string(block.thinking, `${at}.thinking`);
      check.string(block.signature, `${at}.signature`, true);
    } else if (block.type === "redacted_thinking") {
      check.keys(block, at, ["type", "data"]);
      check.string(block.data, `${at}.data`, true);
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
        `an assistant turn sent back takes thinking, redacted_thinking, text or tool_use blocks, got ${JSON.stringify(block.type)}`,
      );
    }
  }
  return ids;
}
