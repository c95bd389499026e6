import { readFile } from "node:fs/promises";
import { extname } from "node:path";

/** The built chat page (`scripts/build-chat-page.mjs` writes it to dist/chat-page at build time). */
const PAGE = new URL("../chat-page/", import.meta.url);

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * The chat page's answer to a GET of `/`, `/index.html` or `/assets/<file>`, or undefined for any
 * other request (those go to the chat API). The page's files are kept by name: nothing outside
 * its folder can be asked for. Its assets have content hashes in their names, so they are cached.
 */
export async function chatPageFile(request: Request): Promise<Response | undefined> {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const { pathname } = new URL(request.url);
  const asset = /^\/assets\/(\w[\w.-]*)$/.exec(pathname)?.[1];
  const file = pathname === "/" || pathname === "/index.html" ? "index.html" : asset && `assets/${asset}`;
  if (file === undefined) return undefined;
  let body: Buffer;
  try {
    body = await readFile(new URL(file, PAGE));
  } catch {
    const missing = file === "index.html" ? "the chat page is not built (pnpm --filter @agentloop/cli build)" : "";
    return new Response(missing || `no such file: ${pathname}`, {
      status: 404,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const headers = {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "cache-control": asset === undefined ? "no-cache" : "public, max-age=31536000, immutable",
  };
  return new Response(request.method === "HEAD" ? null : new Uint8Array(body), { headers });
}
