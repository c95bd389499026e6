import { expect, it } from "vitest";
import "./polyfill.js";

interface Resolvers {
  promise: Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

it("Promise.withResolvers is there (Node 20 lacks it) and resolves and rejects its promise", async () => {
  const { withResolvers } = Promise as unknown as { withResolvers: (this: PromiseConstructor) => Resolvers };
  const yes = withResolvers.call(Promise);
  yes.resolve(42);
  await expect(yes.promise).resolves.toBe(42);
  const no = withResolvers.call(Promise);
  no.reject(new Error("no"));
  await expect(no.promise).rejects.toThrow("no");
});
