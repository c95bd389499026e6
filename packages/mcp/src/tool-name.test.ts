import { describe, expect, it } from "vitest";
import { toolNameOf } from "./tool-name.js";

describe("toolNameOf", () => {
  it("keeps a name the providers accept, with the prefix", () => {
    expect(toolNameOf("get_weather")).toBe("get_weather");
    expect(toolNameOf("get-weather", "wx_")).toBe("wx_get-weather");
  });

  it("maps other characters to '_' and adds a hash of the MCP name, so that names stay apart", () => {
    const dotted = toolNameOf("files.read");
    const slashed = toolNameOf("files/read");
    expect(dotted).toMatch(/^files_read_[0-9a-f]{8}$/);
    expect(slashed).toMatch(/^files_read_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(slashed);
    expect(toolNameOf("files.read")).toBe(dotted);
    expect(toolNameOf("lire un fichier é")).toMatch(/^lire_un_fichier___[0-9a-f]{8}$/);
  });

  it("cuts long names to 64 characters", () => {
    const long = "x".repeat(80);
    const mapped = toolNameOf(long);
    expect(mapped).toHaveLength(64);
    expect(mapped).not.toBe(toolNameOf(`${"x".repeat(79)}y`));
    expect(toolNameOf("a".repeat(60), "prefix_")).toHaveLength(64);
  });
});
