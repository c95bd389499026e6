import { describe, expect, it } from "vitest";
import { sdkRequestOptions } from "../../src/adapter.js";

describe("sdkRequestOptions", () => {
  it("in a run that retries itself, the SDK makes one request per attempt unless the adapter was given maxRetries", () => {
    expect(sdkRequestOptions({}, true)).toEqual({ maxRetries: 0 });
    expect(sdkRequestOptions({ maxRetries: 3, timeout: 5000 }, true)).toEqual({ maxRetries: 3, timeout: 5000 });
  });

  it("in a run that does not retry, the client's own retries stay", () => {
    expect(sdkRequestOptions({}, false)).toEqual({});
    expect(sdkRequestOptions({ timeout: 5000 }, undefined)).toEqual({ timeout: 5000 });
  });
});
