import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { McpServer, Server } from "@modelcontextprotocol/server";
import { type ServerCall, weatherServer } from "./fixtures/servers.mjs";

/** A client connected in process to `server`, and how to close both. */
export async function connectTo(server: McpServer | Server): Promise<{ client: Client; close(): Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agentloop-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A client connected in process to a fresh `weatherServer`; `calls` are the calls that reached it. */
export async function connectInMemory() {
  const calls: ServerCall[] = [];
  const server = weatherServer(calls);
  return { ...(await connectTo(server)), server, calls };
}
