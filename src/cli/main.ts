/** The `./loupe` command line: one module per command group. */
import { loadDotEnv } from "../common/config.ts";
import { ConfigError } from "../common/settings.ts";
import { UsageError } from "./usage.ts";

const USAGE = `Usage: ./loupe <command>

  up                      install what is missing, start files (:8000) and intel (:9080)
  test                    install what tests need and run the whole suite
  files serve [--port N]  the file analysis service alone
  analyze FILE…           every file analyzer on each file (./loupe analyze --help)
  intel …                 the threat intelligence service (./loupe intel --help)
  bench [NAME…]           run benchmarks from bench/ (all when no name is given)
  doctor [--json|--prometheus]  check configuration, database, queue, clamd, YARA, disk
  image build             build the container images from Debian packages (deploy/)
`;

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
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const load = groups[command];
  if (!load) {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  loadDotEnv();
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
    process.stderr.write(`loupe: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
