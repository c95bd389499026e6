import { EventLogError, ModelError } from "@agentloop/core";
import { messageOf, USAGE_EXIT, UsageError } from "./cli-error.js";
import { COMMANDS, MAIN_HELP } from "./commands/index.js";
import type { Io } from "./io.js";

/**
 * Runs one `agentloop` command line and returns the exit code: 0 on success, 2 for a user error
 * (one line on stderr saying what to do), 1 for a run that failed (the model could not be used).
 */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? args[0] : undefined;
    const command = topic === undefined ? undefined : COMMANDS[topic];
    if (topic !== undefined && command === undefined) return fail(io, unknownCommand(topic));
    io.stdout.write(command === undefined ? MAIN_HELP : command.help);
    return 0;
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write("agentloop 0.1.0\n");
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) return fail(io, unknownCommand(name));
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof EventLogError) return fail(io, error.message);
    if (error instanceof ModelError) {
      io.stderr.write(`agentloop: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`agentloop: unexpected failure: ${messageOf(error)}\n`);
    if (io.env.AGENTLOOP_DEBUG) io.stderr.write(`${error instanceof Error ? error.stack : ""}\n`);
    return 1;
  }
}

function unknownCommand(name: string): string {
  const known = Object.keys(COMMANDS).join(", ");
  return name.startsWith("-")
    ? `unknown option ${name}: options go after a command (${known}); see 'agentloop --help'`
    : `unknown command '${name}': use one of ${known}; see 'agentloop --help'`;
}

function fail(io: Io, message: string): number {
  io.stderr.write(`agentloop: ${message}\n`);
  return USAGE_EXIT;
}
