/**
 * The headers of requests every front door refuses 403 by default, for a server reached as `host`
 * (`127.0.0.1:<port>`): a page of another origin (the no-preflight `text/plain` POST too), an
 * `Origin: null` page, a browser's `Sec-Fetch-Site: cross-site` without an Origin, and a page whose
 * own name was rebound to the server (DNS rebinding: a foreign `Host`). For doors' tests.
 */
export function foreignRequests(host: string): readonly Readonly<Record<string, string>>[] {
  return [
    { origin: "https://evil.example", "content-type": "text/plain", host },
    { origin: "null", "content-type": "application/json", host },
    { "sec-fetch-site": "cross-site", "content-type": "text/plain", host },
    { origin: "http://evil.example:80", host: "evil.example:80", "content-type": "application/json" },
  ];
}
