/**
 * The CLI table: every command and subcommand with its usage. `--help` anywhere is answered from
 * here before any command module loads, so help never starts, installs or opens anything.
 */

export interface CommandHelp {
  /** The words that name the command (`["intel", "user", "create"]`). */
  words: string[];
  usage: string;
}

const ports = (env: NodeJS.ProcessEnv) => ({
  files: env.FILES_PORT || "8000",
  intel: env.INTEL_PORT || "9080",
});

function topUsage(env: NodeJS.ProcessEnv): string {
  const p = ports(env);
  return `Usage: ./loupe <command> [--help]

  up                      install what is missing, start files (:${p.files}) and intel (:${p.intel})
  test                    install what tests need and run the whole suite
  files serve [--port N]  the file analysis service alone
  analyze FILE…           every file analyzer on each file (./loupe analyze --help)
  intel …                 the threat intelligence service (./loupe intel --help)
  bench [NAME…]           run benchmarks from bench/ (all when no name is given)
  doctor [--json|--prometheus]  check configuration, database, queue, clamd, YARA, disk
  image build             build the container images from Debian packages (deploy/)
  config show|init        the effective settings and where each came from; the instance's file
  --config FILE           (before or after any command) read this configuration file too
  --version               print Loupe's version

Ports come from FILES_PORT and INTEL_PORT (docs/configuration.md).
`;
}

export const INTEL_USAGE = `Usage: ./loupe intel <command> [--help]

  serve [--port N] [--no-worker]          the API and admin panel (with an embedded worker)
  worker                                  a standalone worker (up runs one; more scale out)
  migrate                                 create or update the database schema
  admin-url                               print the admin panel URL
  user create --username U [--admin [--password-stdin]]
                                          an admin gets a password (printed when generated);
                                          a regular user none: they use API keys
  user list                               every user, role, state and active key count
  token create --username U               print a new API key (shown once)
  token list --username U                 a user's keys (id, prefix, state)
  token revoke --username U ID            revoke one key at once
  credentials set VENDOR [--from-file F]  add a credential set (several per vendor rotate): secrets
                                          as field=value lines on stdin or in F, never on argv
  credentials test VENDOR|ID              one harmless call to the vendor with each set (exit 1: failed)
  credentials list [VENDOR]
  credentials remove ID
  marking set SUPER_TYPE TYPE VALUE [--tlp L] [--pap L]
                                          set a stored subject's TLP/PAP (the way to lower
                                          it; asks only raise it); written to the audit log
`;

const TABLE: CommandHelp[] = [
  {
    words: ["up"],
    usage:
      "Usage: ./loupe up\n\n  Installs what is missing, then runs files, intel and one intel worker under a supervisor.\n",
  },
  {
    words: ["test"],
    usage:
      "Usage: ./loupe test [--no-install] [--no-lint] [--concurrency N] [TEST_FILE…]\n\n  Installs what the tests need (as root), lints, type-checks and runs the suite (or the files given),\n  N test files at a time (default 2).\n",
  },
  { words: ["files"], usage: "Usage: ./loupe files serve [--port N]\n" },
  {
    words: ["files", "serve"],
    usage: "Usage: ./loupe files serve [--port N]\n\n  The file analysis service alone.\n",
  },
  {
    words: ["bench"],
    usage:
      "Usage: ./loupe bench [NAME…] [-- OPTIONS]\n\n  Runs bench/<NAME>/index.ts (every benchmark when no name is given) and prints their ratios\n  (docs/benchmarks.md).\n",
  },
  {
    words: ["doctor"],
    usage:
      "Usage: ./loupe doctor [--json|--prometheus]\n\n  Checks configuration, database, queue, clamd, YARA and disk; exit 1 on an error.\n",
  },
  {
    words: ["image"],
    usage:
      "Usage: ./loupe image build [--with-proxy] [--rebuild-base]\n\n  Builds the container images from Debian's packages (deploy/).\n",
  },
  {
    words: ["config"],
    usage:
      "Usage: ./loupe config show [--json] | init [--force]\n\n  show   every setting's effective value and where it came from (secrets masked)\n  init   write <LOUPE_DATA_DIR>/loupe.env, the instance's own configuration file\n",
  },
  { words: ["config", "show"], usage: "Usage: ./loupe config show [--json]\n" },
  { words: ["config", "init"], usage: "Usage: ./loupe config init [--force]\n" },
  { words: ["intel"], usage: INTEL_USAGE },
  { words: ["intel", "serve"], usage: "Usage: ./loupe intel serve [--port N] [--no-worker]\n" },
  { words: ["intel", "worker"], usage: "Usage: ./loupe intel worker\n" },
  { words: ["intel", "migrate"], usage: "Usage: ./loupe intel migrate\n" },
  { words: ["intel", "admin-url"], usage: "Usage: ./loupe intel admin-url\n" },
  {
    words: ["intel", "user"],
    usage: "Usage: ./loupe intel user create --username U [--admin [--password-stdin]] | list\n",
  },
  {
    words: ["intel", "user", "list"],
    usage:
      "Usage: ./loupe intel user list\n\n  Every user: id, username, role, active or not, active key count.\n",
  },
  {
    words: ["intel", "user", "create"],
    usage:
      "Usage: ./loupe intel user create --username U [--admin [--password-stdin]]\n\n  An admin gets a password (read from stdin with --password-stdin, else generated and printed once);\n  a regular user gets none and uses API keys.\n",
  },
  {
    words: ["intel", "token"],
    usage: "Usage: ./loupe intel token create|list --username U | revoke --username U ID\n",
  },
  {
    words: ["intel", "token", "list"],
    usage:
      "Usage: ./loupe intel token list --username U\n\n  The user's keys, newest first: id, prefix, active or revoked.\n",
  },
  {
    words: ["intel", "token", "revoke"],
    usage:
      "Usage: ./loupe intel token revoke --username U ID\n\n  Revokes key ID (from token list) of user U; requests with it are refused at once.\n",
  },
  {
    words: ["intel", "token", "create"],
    usage: "Usage: ./loupe intel token create --username U\n\n  Prints a new API key (shown once).\n",
  },
  { words: ["intel", "credentials"], usage: "Usage: ./loupe intel credentials set|test|list|remove …\n" },
  {
    words: ["intel", "credentials", "set"],
    usage: `Usage: ./loupe intel credentials set VENDOR [--from-file F] [url=…]

  Reads the set as field=value lines (blank lines and # comments skipped) from F, else from stdin;
  a single line without a field name is the vendor's one secret:
      printf 'api_key=%s\\n' "$VT_KEY" | ./loupe intel credentials set virustotal
  A secret on the command line is refused (shell history and the process list keep it); fields that
  are not secrets (a MISP url) may be given there. Placeholders (YOUR_…, <key>, changeme, xxxx) are refused.
`,
  },
  {
    words: ["intel", "credentials", "test"],
    usage:
      "Usage: ./loupe intel credentials test VENDOR|ID\n\n  One harmless call to the vendor with each of its sets (or set ID), kept as the set's last test\n  (as the panel's Test button); a set that passes goes back in rotation. Exit 1 when one failed.\n",
  },
  { words: ["intel", "credentials", "list"], usage: "Usage: ./loupe intel credentials list [VENDOR]\n" },
  { words: ["intel", "credentials", "remove"], usage: "Usage: ./loupe intel credentials remove ID\n" },
  {
    words: ["intel", "marking"],
    usage: "Usage: ./loupe intel marking set SUPER_TYPE TYPE VALUE [--tlp L] [--pap L]\n",
  },
  {
    words: ["intel", "marking", "set"],
    usage:
      "Usage: ./loupe intel marking set SUPER_TYPE TYPE VALUE [--tlp L] [--pap L]\n\n  Sets a stored subject's TLP/PAP (the only way to lower it; asks only raise it); written to the audit log.\n",
  },
];

/** Every command of the table (tests walk it). */
export function commandTable(): readonly CommandHelp[] {
  return TABLE;
}

const HELP_FLAGS = new Set(["--help", "-h", "help"]);

/** True when argv asks for help anywhere before a `--`. */
export function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => HELP_FLAGS.has(a));
}

/** The usage of the most specific command the leading words name (the top usage otherwise). */
export function usageFor(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  extra: CommandHelp[] = [],
): string {
  const words = argv.filter((a) => !a.startsWith("-") && !HELP_FLAGS.has(a));
  let best: CommandHelp | undefined;
  for (const entry of [...TABLE, ...extra]) {
    const matches = entry.words.every((w, i) => words[i] === w);
    if (matches && entry.words.length > (best?.words.length ?? 0)) best = entry;
  }
  return best?.usage ?? topUsage(env);
}
