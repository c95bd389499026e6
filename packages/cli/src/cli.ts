import { withoutLeadingSeparator } from "./args.js";
import { messageOf, UsageError } from "./cli-error.js";
import { COMMANDS, MAIN_HELP } from "./commands/index.js";
import { EventLogError, ModelError } from "./core-api.js";
import { EXIT_CODES } from "./exit-codes.js";
import type { Io } from "./io.js";
import { closeStores } from "./setup/stores.js";

/**
 * Runs one `agentloop` command line and returns the exit code (see `EXIT_CODES`): a run's status,
 * 2 for a user error (one line on stderr saying what to do), 1 for a failure.
 */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  // `pnpm <script> -- <args>` (pnpm 12) and `npm run <script> -- <args>` can pass the `--` on.
  const [name, ...rest] = withoutLeadingSeparator(argv);
  const args = withoutLeadingSeparator(rest);
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? args[0] : undefined;
    const command = topic === undefined || !Object.hasOwn(COMMANDS, topic) ? undefined : COMMANDS[topic];
    if (topic !== undefined && command === undefined) return fail(io, unknownCommand(topic));
    io.stdout.write(command === undefined ? MAIN_HELP : (await command.load()).help);
    return 0;
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write("agentloop 0.1.0\n");
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) return fail(io, unknownCommand(name));
  try {
    const { run } = await command.load();
    return await run(args, io);
  } catch (error) {
    if (error instanceof UsageError || EventLogError.isInstance(error)) return fail(io, oneLine(error.message));
    if (ModelError.isInstance(error)) {
      io.stderr.write(`agentloop: ${oneLine(error.message)}\n`);
      return EXIT_CODES.failure;
    }
    io.stderr.write(`agentloop: unexpected failure: ${messageOf(error)}\n`);
    if (io.env.AGENTLOOP_DEBUG) io.stderr.write(`${error instanceof Error ? error.stack : ""}\n`);
    return EXIT_CODES.failure;
  } finally {
    await closeStores();
  }
}

function unknownCommand(name: string): string {
  const known = Object.keys(COMMANDS).join(", ");
  return name.startsWith("-")
    ? `unknown option ${name}: options go after a command (${known}); see 'agentloop --help'`
    : `unknown command '${name}': use one of ${known}; see 'agentloop --help'`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

function fail(io: Io, message: string): number {
  io.stderr.write(`agentloop: ${message}\n`);
  return EXIT_CODES.usage;
}
