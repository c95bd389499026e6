import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

/** The parts of a `.cpuprofile` (Chrome DevTools format) that self time needs. */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a function lives: xstate, one of agentloop's files, Node's internals, V8's pseudo-frames, or another package. */
export function areaOf(url: string, name: string): string {
  if (url === "") return name.startsWith("(") ? name : "(native)";
  if (url.includes("/xstate/")) return "xstate";
  const core = /\/core(?:-[\w]+)?\/(?:dist|src)\/([\w-]+)\.js/.exec(url);
  if (core) return `core: ${core[1]}`;
  if (url.startsWith("node:")) return "node internals";
  if (url.includes("/bench/")) return "bench (model, tools, checks)";
  return basename(url);
}

/** Self time in milliseconds by function and by area, the largest first. */
export function selfTimes(profile: CpuProfile): { functions: [string, number][]; areas: [string, number][] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [index, id] of profile.samples.entries()) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const area = areaOf(url, functionName);
    const label = `${functionName || "(anonymous)"} — ${url === "" ? area : `${basename(url)}:${lineNumber + 1}`}`;
    functions.set(label, (functions.get(label) ?? 0) + ms);
    areas.set(area, (areas.get(area) ?? 0) + ms);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return { functions: sorted(functions), areas: sorted(areas) };
}

function newestProfile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path).filter((file) => file.endsWith(".cpuprofile"));
  const newest = files.sort((a, b) => statSync(join(path, b)).mtimeMs - statSync(join(path, a)).mtimeMs)[0];
  if (newest === undefined) throw new Error(`no .cpuprofile in ${path}`);
  return join(path, newest);
}

const [path = "/tmp/agentloop-profiles", top = "25"] = process.argv.slice(2);
const file = newestProfile(path);
const { functions, areas } = selfTimes(JSON.parse(readFileSync(file, "utf8")) as CpuProfile);
const total = areas.reduce((sum, [, ms]) => sum + ms, 0);
const line = ([label, ms]: [string, number]) => `| ${label} | ${ms.toFixed(0)} | ${((ms / total) * 100).toFixed(1)}% |`;
process.stdout.write(`${file}: ${total.toFixed(0)} ms sampled\n\n| area | self ms | share |\n| --- | --- | --- |\n`);
process.stdout.write(`${areas.map(line).join("\n")}\n\n| function | self ms | share |\n| --- | --- | --- |\n`);
process.stdout.write(`${functions.slice(0, Number(top)).map(line).join("\n")}\n`);
