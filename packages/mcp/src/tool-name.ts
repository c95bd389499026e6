const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The agentloop name of an MCP tool: `prefix + name` when that already fits the providers' rule
 * (1-64 letters, digits, `_`, `-`); otherwise every other character becomes `_`, the name is cut
 * to fit, and `_` plus eight hex digits of a hash of the MCP name are added, so that two names that
 * map alike (`a.b`, `a/b`) stay apart. The same MCP name always maps to the same name.
 */
export function toolNameOf(mcpName: string, prefix = ""): string {
  const wanted = `${prefix}${mcpName}`;
  if (PROVIDER_NAME.test(wanted)) return wanted;
  const suffix = `_${fnv1a(mcpName)}`;
  return `${wanted.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64 - suffix.length)}${suffix}`;
}

/** FNV-1a, 32 bits, as eight hex digits: short, stable across runs and machines. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
