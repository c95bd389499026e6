/** The single list of test projects; the root vitest.config.ts imports it (vitest 4 ignores this file on its own). */
export const projects = ["packages/*"];
