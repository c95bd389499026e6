// Messages API bodies as api.anthropic.com returns them for claude-sonnet-4-5 with extended
// thinking: a signed thinking block, a redacted one, then a tool_use; a web search the server ran
// (server_tool_use and its web_search_tool_result) before an answer. Signatures are opaque.

export const SIGNATURE = "EqQBCkgIBxABGAIiQPd0aXRoaW5nIHNpZ25hdHVyZSBzdGFuZC1pbg==";
export const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4";

export const THINKING_CALL = {
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    { type: "thinking", thinking: "The user wants Fahrenheit. First the Celsius reading.", signature: SIGNATURE },
    { type: "redacted_thinking", data: REDACTED },
    { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { city: "Pune" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: {
    input_tokens: 52,
    cache_creation_input_tokens: 1024,
    cache_read_input_tokens: 2048,
    output_tokens: 139,
    service_tier: "standard",
  },
};

export const ANSWER = {
  id: "msg_01Aq9w938a90dw8q",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "It is 86 F in Pune." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 300, cache_creation_input_tokens: 0, cache_read_input_tokens: 3072, output_tokens: 12 },
};

export const WEB_SEARCH = {
  id: "msg_01WebSearch0000000000001",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    {
      type: "server_tool_use",
      id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
      name: "web_search",
      input: { query: "Pune weather now" },
    },
    {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
      content: [
        {
          type: "web_search_result",
          url: "https://weather.example.com/pune",
          title: "Pune weather",
          encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2YSDJ1",
          page_age: "December 6, 2026",
        },
      ],
    },
    { type: "text", text: "Pune is at 30 °C." },
  ],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 2100, output_tokens: 80, server_tool_use: { web_search_requests: 1 } },
};

/** The thinking reply as the stream sends it. */
export const THINKING_CALL_EVENTS = [
  {
    type: "message_start",
    message: { ...THINKING_CALL, content: [], stop_reason: null, usage: { ...THINKING_CALL.usage, output_tokens: 1 } },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants Fahrenheit. " } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "First the Celsius reading." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: REDACTED } },
  { type: "content_block_stop", index: 1 },
  {
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: {} },
  },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city": ' } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '"Pune"}' } },
  { type: "content_block_stop", index: 2 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 139 } },
  { type: "message_stop" },
];

export const ANSWER_EVENTS = [
  {
    type: "message_start",
    message: { ...ANSWER, content: [], stop_reason: null, usage: { ...ANSWER.usage, output_tokens: 1 } },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "It is 86 F " } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "in Pune." } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: "message_stop" },
];

/** Anthropic's event stream: each event named by its type. */
export function anthropicEvents(events: readonly unknown[]): string {
  return events
    .map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
}

export const isAnthropicStream = (_url: string, body: Record<string, unknown>) => body.stream === true;
