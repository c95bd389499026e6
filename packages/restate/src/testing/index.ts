export { type Balancer, freePort, startBalancer } from "@agentloop/store-testkit/servers";
export {
  type RestateServer,
  restateServerBinary,
  type ServerOptions,
  startRestateServer,
} from "./restate-server.js";
