export { escapeHtml } from "./client/html.js";

/** JSON made safe inside a `<script>` element: no `</script>` can end it early. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
