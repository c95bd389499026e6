/** ANSI styles, or plain text when colors are off. */
export interface Palette {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly blue: (text: string) => string;
  readonly magenta: (text: string) => string;
  readonly cyan: (text: string) => string;
}

const style =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const ANSI: Palette = {
  bold: style(1, 22),
  dim: style(2, 22),
  red: style(31, 39),
  green: style(32, 39),
  yellow: style(33, 39),
  blue: style(34, 39),
  magenta: style(35, 39),
  cyan: style(36, 39),
};

const plain = (text: string): string => text;
const PLAIN: Palette = {
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
  blue: plain,
  magenta: plain,
  cyan: plain,
};

/** The palette: ANSI when `enabled`, plain text otherwise. */
export function palette(enabled: boolean): Palette {
  return enabled ? ANSI : PLAIN;
}

/**
 * Whether to color output: never with `--no-color` or a non-empty `NO_COLOR`; always with a
 * non-empty `FORCE_COLOR` other than `0`; otherwise only on a terminal.
 */
export function useColor(stream: { readonly isTTY?: boolean }, noColor: boolean, env: NodeJS.ProcessEnv): boolean {
  if (noColor || (env.NO_COLOR ?? "") !== "") return false;
  const force = env.FORCE_COLOR ?? "";
  if (force !== "" && force !== "0") return true;
  return stream.isTTY === true;
}
