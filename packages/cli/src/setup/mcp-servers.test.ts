import { describe, expect, it } from "vitest";
import { splitCommand } from "./mcp-servers.js";

describe("splitCommand", () => {
  it.each<[string, string[]]>([
    ["node server.js", ["node", "server.js"]],
    ["  npx   -y  pkg  ", ["npx", "-y", "pkg"]],
    [`node "my server.js" --name 'a b'`, ["node", "my server.js", "--name", "a b"]],
    [`say "a \\"quoted\\" word" it\\'s`, ["say", 'a "quoted" word', "it's"]],
    [`run '' ""`, ["run", "", ""]],
    ["", []],
  ])("%s", (command, words) => {
    expect(splitCommand(command)).toEqual(words);
  });

  it("refuses an unclosed quote", () => {
    expect(() => splitCommand(`node 'x`)).toThrow(/unclosed '/);
  });
});
