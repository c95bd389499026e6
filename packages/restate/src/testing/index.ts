export { type Balancer, startBalancer } from "./balancer.js";
export { freePort } from "./free-port.js";
export {
  type RestateServer,
  restateServerBinary,
  type ServerOptions,
  startRestateServer,
} from "./restate-server.js";
