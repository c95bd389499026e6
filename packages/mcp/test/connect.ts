import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { type ServerCall, weatherServer } from "./fixtures/servers.mjs";

/** A client connected in process to a fresh `weatherServer`; `calls` are the calls that reached it. */
export async function connectInMemory() {
  const calls: ServerCall[] = [];
  const server = weatherServer(calls);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agentloop-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    server,
    calls,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
