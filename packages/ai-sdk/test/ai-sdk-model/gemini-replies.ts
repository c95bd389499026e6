// Gemini API bodies of the shape generativelanguage.googleapis.com returns for a thinking model
// (gemini-3-pro-preview): parallel function calls where only the first carries the thought
// signature, as Google documents; the signature value is opaque base64.

export const THOUGHT_SIGNATURE =
  "CiQBVKhc7mQbXIoRpLiGXk0vBThCYGZh1NFDmWBm4JeqH8dQ0bMKZQFUqFzueRHX5ZN9ReM8pXxgMQ0CdzBKyq+J8BzqvA==";

export const USAGE_1 = {
  promptTokenCount: 212,
  candidatesTokenCount: 28,
  totalTokenCount: 318,
  thoughtsTokenCount: 78,
  promptTokensDetails: [{ modality: "TEXT", tokenCount: 212 }],
};

/** The first reply: a thought, then get_weather for Pune (signed) and for Delhi (unsigned). */
export const PARALLEL_CALLS = {
  candidates: [
    {
      content: {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Pune" } }, thoughtSignature: THOUGHT_SIGNATURE },
          { functionCall: { name: "get_weather", args: { city: "Delhi" } } },
        ],
      },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: USAGE_1,
  modelVersion: "gemini-3-pro-preview",
  responseId: "7t0vacKOBqTkvdIPq8SZ-Ac",
};

/** The same reply as the stream sends it: the signed call in one chunk, the unsigned one in the next. */
export const PARALLEL_CALLS_STREAM = [
  {
    candidates: [
      {
        content: {
          role: "model",
          parts: [
            { functionCall: { name: "get_weather", args: { city: "Pune" } }, thoughtSignature: THOUGHT_SIGNATURE },
          ],
        },
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 212, totalTokenCount: 290, thoughtsTokenCount: 78 },
    modelVersion: "gemini-3-pro-preview",
    responseId: "7t0vacKOBqTkvdIPq8SZ-Ac",
  },
  {
    candidates: [
      {
        content: { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Delhi" } } }] },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: USAGE_1,
    modelVersion: "gemini-3-pro-preview",
    responseId: "7t0vacKOBqTkvdIPq8SZ-Ac",
  },
];

export const FINAL_TEXT = "Pune is at 30 °C (86 °F) and Delhi at 35 °C (95 °F).";

export const FINAL = {
  candidates: [
    {
      content: { role: "model", parts: [{ text: FINAL_TEXT, thoughtSignature: "Ct8BAVSoXO5final" }] },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 301,
    candidatesTokenCount: 24,
    totalTokenCount: 325,
    cachedContentTokenCount: 128,
  },
  modelVersion: "gemini-3-pro-preview",
  responseId: "8N0vaaWBAqTkvdIPq8SZ-Ad",
};

export const FINAL_STREAM = [
  {
    candidates: [{ content: { role: "model", parts: [{ text: "Pune is at 30 °C (86 °F) " }] }, index: 0 }],
    modelVersion: "gemini-3-pro-preview",
  },
  {
    candidates: [
      {
        content: {
          role: "model",
          parts: [{ text: "and Delhi at 35 °C (95 °F).", thoughtSignature: "Ct8BAVSoXO5final" }],
        },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: FINAL.usageMetadata,
    modelVersion: "gemini-3-pro-preview",
  },
];

export const isGeminiStream = (url: string) => url.includes(":streamGenerateContent");
