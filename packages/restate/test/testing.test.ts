import { describe, expect, it } from "vitest";
import { startRestateServer } from "../src/testing/index.js";

describe("startRestateServer", () => {
  it("rejects at once, saying why, when the server binary cannot be started", async () => {
    await expect(startRestateServer({ binary: "/nonexistent/restate-server" })).rejects.toThrow(
      /gave up waiting for the Restate server to answer its health checks: restate-server could not be started \(\/nonexistent\/restate-server\): spawn \/nonexistent\/restate-server ENOENT/,
    );
  });
});
