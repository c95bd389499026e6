import { crc32 } from "node:zlib";

// Converse API bodies as bedrock-runtime returns them for Claude on Bedrock with reasoning on:
// a signed reasoning block, then a toolUse; then an answer. The stream is AWS's binary event
// stream (application/vnd.amazon.eventstream), one frame per event.

export const BEDROCK_SIGNATURE = "ErcBCkgIBRABGAIiQHNpZ25lZCByZWFzb25pbmcgb24gYmVkcm9jaw==";

export const REASONING_CALL = {
  output: {
    message: {
      role: "assistant",
      content: [
        { reasoningContent: { reasoningText: { text: "Celsius first, then convert.", signature: BEDROCK_SIGNATURE } } },
        { toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { city: "Pune" } } },
      ],
    },
  },
  stopReason: "tool_use",
  usage: {
    inputTokens: 420,
    outputTokens: 96,
    totalTokens: 1516,
    cacheReadInputTokens: 900,
    cacheWriteInputTokens: 100,
  },
  metrics: { latencyMs: 1834 },
};

export const BEDROCK_ANSWER = {
  output: { message: { role: "assistant", content: [{ text: "It is 86 F in Pune." }] } },
  stopReason: "end_turn",
  usage: { inputTokens: 530, outputTokens: 14, totalTokens: 544 },
  metrics: { latencyMs: 702 },
};

export const REASONING_CALL_EVENTS: readonly (readonly [string, unknown])[] = [
  ["messageStart", { role: "assistant" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "Celsius first, " } } }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "then convert." } } }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { signature: BEDROCK_SIGNATURE } } }],
  ["contentBlockStop", { contentBlockIndex: 0 }],
  [
    "contentBlockStart",
    { contentBlockIndex: 1, start: { toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather" } } },
  ],
  ["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }],
  ["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: '"Pune"}' } } }],
  ["contentBlockStop", { contentBlockIndex: 1 }],
  ["messageStop", { stopReason: "tool_use" }],
  ["metadata", { usage: REASONING_CALL.usage, metrics: { latencyMs: 1834 } }],
];

export const ANSWER_EVENTS_BEDROCK: readonly (readonly [string, unknown])[] = [
  ["messageStart", { role: "assistant" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "It is 86 F " } }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "in Pune." } }],
  ["contentBlockStop", { contentBlockIndex: 0 }],
  ["messageStop", { stopReason: "end_turn" }],
  ["metadata", { usage: BEDROCK_ANSWER.usage, metrics: { latencyMs: 702 } }],
];

/** Frames of AWS's event stream: prelude (lengths and their CRC32), string headers, the JSON payload, the message CRC32. */
export function eventStream(events: readonly unknown[]): Uint8Array<ArrayBuffer> {
  const frames = events.map((event) => {
    const [type, body] = event as readonly [string, unknown];
    return frame(
      { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
      Buffer.from(JSON.stringify(body)),
    );
  });
  return new Uint8Array(Buffer.concat(frames));
}

function frame(headers: Record<string, string>, payload: Buffer): Buffer {
  const encoded = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name);
      const valueBytes = Buffer.from(value);
      const head = Buffer.alloc(1 + nameBytes.length + 1 + 2);
      head.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(head, 1);
      head.writeUInt8(7, 1 + nameBytes.length);
      head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      return Buffer.concat([head, valueBytes]);
    }),
  );
  const total = 12 + encoded.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(encoded.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const message = Buffer.concat([prelude, encoded, payload]);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, tail]);
}

export const isBedrockStream = (url: string) => url.endsWith("/converse-stream");
