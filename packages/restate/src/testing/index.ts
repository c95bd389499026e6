export { type Balancer, startBalancer } from "./balancer.js";
export {
  freePort,
  type RestateServer,
  restateServerBinary,
  type ServerOptions,
  startRestateServer,
} from "./restate-server.js";
