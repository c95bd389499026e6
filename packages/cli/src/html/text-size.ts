/**
 * Widths of text in the report's SVG, estimated without a browser: the layout needs sizes before
 * any page exists. The estimates err wide (a box a little too large, never too small); the
 * report's browser test measures the real text and fails if any of it leaves its box.
 */

/** Height of one line of 11 px edge and transition text, in SVG user units. */
export const LINE_HEIGHT = 13;

const NARROW = /[ijlt.,:;|!'()[\]fr ]/;
const WIDE = /[mwMW@%]/;

/** Estimated width of `text` at `size` px in the report's sans-serif font. */
export function textWidth(text: string, size: number): number {
  let units = 0;
  for (const char of text)
    units += NARROW.test(char) ? 0.36 : WIDE.test(char) ? 0.92 : /[A-Z0-9]/.test(char) ? 0.7 : 0.6;
  return Math.ceil(units * size) + 2;
}

/** Width of the widest of `lines` at `size` px. */
export function linesWidth(lines: readonly string[], size: number): number {
  return Math.max(0, ...lines.map((line) => textWidth(line, size)));
}
