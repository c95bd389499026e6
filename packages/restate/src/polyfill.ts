/**
 * `Promise.withResolvers` for Node 20, which lacks it (it came in Node 22): the Restate SDK calls
 * it whenever it makes a promise. The package index imports this module before the SDK, so it is
 * in place before any handler runs; where the runtime has its own, that one is kept.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

type WithResolvers = <T>(this: PromiseConstructor) => Resolvers<T>;

const promiseConstructor = Promise as PromiseConstructor & { withResolvers?: WithResolvers };

if (typeof promiseConstructor.withResolvers !== "function") {
  const withResolvers: WithResolvers = function <T>(this: PromiseConstructor) {
    let resolve: Resolvers<T>["resolve"] = () => {};
    let reject: Resolvers<T>["reject"] = () => {};
    const promise = new this<T>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    return { promise, resolve, reject };
  };
  Object.defineProperty(Promise, "withResolvers", { value: withResolvers, writable: true, configurable: true });
}
