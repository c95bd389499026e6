export { freePort } from "@agentloop/store-testkit/servers";
export { type Balancer, startBalancer } from "./balancer.js";
export {
  type RestateServer,
  restateServerBinary,
  type ServerOptions,
  startRestateServer,
} from "./restate-server.js";
