/**
 * A duration in milliseconds as a short fixed-style text that stays readable at any size:
 * `412ms`, `12.4s`, `3m05s`, `2h03m`, `3d04h`.
 */
export function formatDuration(ms: number): string {
  const value = Math.max(0, Math.round(ms));
  if (value < 1000) return `${value}ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)}s`;
  const seconds = Math.floor(value / 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${pad(seconds % 60)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)}h${pad(minutes % 60)}m`;
  const hours = Math.floor(minutes / 60);
  return `${Math.floor(hours / 24)}d${pad(hours % 24)}h`;
}

/** Milliseconds from `start` to the ISO time `at`, 0 when either is not a time. */
export function offsetOf(at: string, start: number): number {
  const time = Date.parse(at);
  return Number.isNaN(time) || Number.isNaN(start) ? 0 : Math.max(0, time - start);
}
