import type { JSONValue, ProviderMetadata } from "@agentloop/core/adapter";

/**
 * The key of an assistant message's `providerMetadata` under which the bridge keeps what the reply
 * held beside its text, reasoning and calls, for the next request: the parts of tools the provider
 * ran itself (`providerExecuted`, logged, never run again) and the metadata of its text part
 * (`text`, a Gemini text signature), and where the text stood among those parts (`textAfter`). It
 * is never sent to a provider as options.
 */
export const BRIDGE_KEY = "agentloop";

/** A provider-executed tool call or its result, as the reply carried it, in plain JSON. */
export type ExecutedPart =
  | {
      readonly type: "tool-call";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: JSONValue;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: "tool-result";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly result: JSONValue;
      readonly isError?: boolean;
      readonly providerMetadata?: ProviderMetadata;
    };

/** What the bridge keeps under `BRIDGE_KEY`. */
export interface BridgeRecord {
  readonly providerExecuted?: readonly ExecutedPart[];
  /** How many of `providerExecuted` came before the reply's text (absent: none), so that the text goes back in its place. */
  readonly textAfter?: number;
  readonly text?: ProviderMetadata;
}

/**
 * Provider metadata as plain JSON, with the `undefined` entries the AI SDK's types allow left out
 * (a log holds JSON only); undefined when nothing is left or it is not JSON.
 */
export function plainMetadata(metadata: unknown): ProviderMetadata | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(metadata)) as unknown;
  } catch {
    return undefined;
  }
  if (typeof copy !== "object" || copy === null || Array.isArray(copy)) return undefined;
  const entries = Object.entries(copy).filter(
    ([, value]) => typeof value === "object" && value !== null && !Array.isArray(value),
  );
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as ProviderMetadata);
}

/** A JSON value as plain JSON (`null` for what JSON cannot hold). */
export function plainJson(value: unknown): JSONValue {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as JSONValue);
  } catch {
    return null;
  }
}

/** Merges metadata that arrives in pieces (a stream's start, deltas and end), later keys winning per provider. */
export function mergeMetadata(
  into: ProviderMetadata | undefined,
  more: ProviderMetadata | undefined,
): ProviderMetadata | undefined {
  if (more === undefined) return into;
  if (into === undefined) return more;
  const merged: Record<string, Record<string, JSONValue>> = { ...into };
  for (const [provider, entries] of Object.entries(more)) merged[provider] = { ...merged[provider], ...entries };
  return merged;
}

/** What the bridge kept on an assistant message, read back (empty when none). */
export function bridgeRecord(metadata: ProviderMetadata | undefined): BridgeRecord {
  const record = metadata?.[BRIDGE_KEY];
  return (record ?? {}) as BridgeRecord;
}

/** The metadata without the bridge's own record: what goes back to the provider as options. */
export function providerOptionsOf(
  metadata: ProviderMetadata | undefined,
): Record<string, Record<string, JSONValue>> | undefined {
  if (metadata === undefined) return undefined;
  // Most metadata holds no record of the bridge's: handed on as it is, with no copy.
  if (!(BRIDGE_KEY in metadata)) return metadata as Record<string, Record<string, JSONValue>>;
  const { [BRIDGE_KEY]: _bridge, ...rest } = metadata;
  return Object.keys(rest).length === 0 ? undefined : (rest as Record<string, Record<string, JSONValue>>);
}
