/** The SDK's per-request options an adapter sets itself. */
export interface SdkRequestOptions {
  /** Retries the SDK makes of a failed request. */
  readonly maxRetries?: number;
  /** Milliseconds one request may take. */
  readonly timeout?: number;
}

/**
 * The options of one model call's request: the adapter's `maxRetries` and `timeout` when given;
 * without `maxRetries`, none of the SDK's own retries (0) in a run that retries itself
 * (`harnessRetries`), so that the two kinds of retry do not multiply, and the client's setting
 * otherwise.
 */
export function sdkRequestOptions(given: SdkRequestOptions, harnessRetries: boolean | undefined): SdkRequestOptions {
  const { maxRetries, timeout } = given;
  return {
    ...(maxRetries === undefined ? (harnessRetries === true ? { maxRetries: 0 } : {}) : { maxRetries }),
    ...(timeout === undefined ? {} : { timeout }),
  };
}
