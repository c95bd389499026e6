import { cpus, loadavg } from "node:os";

/** Formatting of the bench's markdown tables: numbers with units, and ratios to a reference. */

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** `1,234` for counts and large values. */
export function count(value: number): string {
  return grouped.format(value);
}

/** Microseconds with 3 significant digits, grouped: `2.31 µs`, `412 µs`, `12,345 µs`. */
export function micros(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return `${value >= 100 ? count(value) : value.toPrecision(3)} µs`;
}

export function millis(value: number): string {
  return `${value >= 100 ? count(value) : value.toPrecision(3)} ms`;
}

export function bytes(value: number): string {
  if (Math.abs(value) >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(1)} MB`;
  return `${count(value / 1024)} KB`;
}

/** `4.2×`; one decimal under 100. */
export function ratio(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return `${value >= 100 ? count(value) : value.toFixed(value < 10 ? 2 : 1)}×`;
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** A bench's title: `# agentloop <what>`, marked when `--tiny` makes its sizes too small to mean anything. */
export function title(what: string, tiny: boolean): string {
  return `# agentloop ${what}${tiny ? " (--tiny: sizes too small to mean anything)" : ""}`;
}

/**
 * The start of a bench's machine line, `Machine: <cores> cores, <CPU model>, Node <version>`; each
 * bench ends it with what else its figures depend on (the platform, the load average).
 */
export function machine(): string {
  return `Machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}`;
}

/** The line after a table's machine line: the load average (1, 5, 15 min) as the bench ends, then a blank line. */
export function loadAtEnd(): string {
  return `Load average at the end (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(2))
    .join(", ")}.\n`;
}

/** A progress line on stderr (`bench: <line>`), so that stdout holds only the report. */
export function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}
