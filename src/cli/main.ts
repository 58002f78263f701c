/** The `./loupe` command line: one module per command group. */
import { ConfigError } from "../common/settings.ts";
import { asksForHelp, usageFor } from "./commands.ts";
import { loadConfiguration } from "./configuration.ts";
import { UsageError } from "./usage.ts";
import { loupeVersion } from "./version.ts";

type CommandGroup = (args: string[]) => Promise<number | undefined>;

const groups: Record<string, () => Promise<CommandGroup>> = {
  up: async () => (await import("./up.ts")).up,
  test: async () => (await import("./test.ts")).test,
  files: async () => (await import("./files.ts")).files,
  analyze: async () => (await import("./analyze.ts")).analyze,
  intel: async () => (await import("./intel.ts")).intel,
  bench: async () => (await import("./bench.ts")).bench,
  doctor: async () => (await import("./doctor.ts")).doctor,
  image: async () => (await import("./image.ts")).image,
  config: async () => (await import("./config.ts")).config,
};

async function main(given: string[]): Promise<number> {
  // Before help too: the ports it prints may come from a configuration file.
  const argv = loadConfiguration(given);
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-V") {
    process.stdout.write(`${loupeVersion()}\n`);
    return 0;
  }
  // analyze prints its own options (they live beside their parser); every other help is the table's.
  if (!command || (asksForHelp(argv) && command !== "analyze")) {
    const known = !command || groups[command] || asksForHelp([command]);
    process.stdout.write(usageFor(known ? argv : []));
    return command && known ? 0 : 2;
  }
  const load = groups[command];
  if (!load) {
    process.stderr.write(`Unknown command "${command}".\n\n${usageFor([])}`);
    return 2;
  }
  const run = await load();
  return (await run(rest)) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`loupe: ${err.message}\n(see docs/configuration.md)\n`);
      process.exit(2);
    }
    if (err instanceof UsageError) {
      process.stderr.write(`loupe: ${err.message}\n`);
      process.exit(2);
    }
    if (isParseArgsError(err)) {
      process.stderr.write(`loupe: ${err.message}\n\n${usageFor(process.argv.slice(2))}`);
      process.exit(2);
    }
    process.stderr.write(`loupe: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

/** node:util parseArgs refuses an unknown or malformed option with a TypeError carrying this code. */
function isParseArgsError(err: unknown): err is Error {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
