import { agentMachine, scriptedModel } from "@agentloop/core";
import { createActor, toPromise } from "xstate";
import { formatResult, traceInspector } from "./trace.js";
import { WEATHER_TASK, weatherScript, weatherTools } from "./weather.js";

const write = (line: string) => process.stdout.write(`${line}\n`);
const { registry, runs } = weatherTools();
const model = scriptedModel(weatherScript());

write("agentloop demo: the weather agent with a scripted model\n");
const actor = createActor(agentMachine, {
  input: { task: WEATHER_TASK, model, registry },
  inspect: traceInspector(write),
});
const done = toPromise(actor);
actor.start();
const result = await done;
write("");
write(formatResult(result));
write(`tools run ${runs.join(", ")}`);
