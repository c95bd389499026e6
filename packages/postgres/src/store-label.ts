/** How errors name a store: its schema and its server, without a password. */
export function storeLabel(schema: string, connectionString: string | undefined): string {
  if (connectionString === undefined) return `schema '${schema}' of the pool's database`;
  try {
    const url = new URL(connectionString);
    const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
    return `schema '${schema}' of ${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return `schema '${schema}' of the database the connection string names`;
  }
}
