import { describe, expect, it } from "vitest";
import { COMMANDS, MAIN_HELP } from "./index.js";

describe("the command table", () => {
  it.each(Object.keys(COMMANDS))("loads %s's own code and help when it is used", async (name) => {
    const entry = COMMANDS[name];
    expect(MAIN_HELP).toContain(`  ${name} `);
    const loaded = await entry?.load();
    expect(loaded?.help).toMatch(new RegExp(`^Usage: agentloop ${name}\\b`));
    expect(loaded?.run).toBeTypeOf("function");
  });
});
