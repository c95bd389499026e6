import { isErrorMessage, type Message } from "../core-api.js";
import type { Palette } from "./colors.js";
import { partsText } from "./parts-text.js";

/** Observations longer than this are shortened in the timeline; the log keeps them whole. */
export const SHOWN_CHARS = 240;

/** One line for a message: its role, then its text, tool calls or observation. */
export function formatMessage(message: Message, colors: Palette): string {
  switch (message.role) {
    case "system":
    case "user":
      return `${colors.dim(message.role.padEnd(9))} ${shorten(partsText(message.content))}`;
    case "assistant": {
      const calls = message.toolCalls.map(
        (call) =>
          `${colors.cyan(call.name)}(${call.rawArgs ?? JSON.stringify(call.args)}) ${colors.dim(`[${call.id}]`)}`,
      );
      const text = message.content === "" ? "" : colors.bold(JSON.stringify(shorten(message.content)));
      return `${colors.magenta("assistant")} ${[text, ...calls].filter(Boolean).join("  →  ")}`;
    }
    case "tool": {
      const content = shorten(partsText(message.content));
      const shown = isErrorMessage(message) ? colors.red(colors.bold(content)) : content;
      return `${colors.blue("tool".padEnd(9))} ${colors.dim(`[${message.toolCallId}]`)} ${message.name} = ${shown}`;
    }
  }
}

/** The text, cut to `SHOWN_CHARS` with a note of its full length. */
export function shorten(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ");
  return oneLine.length <= SHOWN_CHARS ? oneLine : `${oneLine.slice(0, SHOWN_CHARS)}… (${text.length} chars)`;
}
