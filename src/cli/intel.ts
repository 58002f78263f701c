/** `./loupe intel …`: the intel service, its worker, and the accounts and credentials it needs. */
import { parseArgs } from "node:util";
import { readCommonConfig } from "../common/config.ts";
import { closeOnSignals } from "../common/http.ts";
import { createLogger } from "../common/logger.ts";
import { readIntelConfig } from "../intel/config.ts";
import { connectorById } from "../intel/connectors/registry.ts";
import { AccountError, createAccount, issueApiKey } from "../intel/services/accounts.ts";
import {
  addCredentialSet,
  CredentialsError,
  listCredentialSets,
  removeCredentialSet,
} from "../intel/services/credentials.ts";
import { openIntelServices } from "../intel/services/index.ts";
import { startIntelService, startIntelWorker } from "./services.ts";
import { UsageError } from "./usage.ts";

const USAGE = `Usage: ./loupe intel <command>

  serve [--port N] [--no-worker]          the API and admin panel (with an embedded worker)
  worker                                  a standalone worker (up runs one; more scale out)
  migrate                                 create or update the database schema
  admin-url                               print the admin panel URL
  user create --username U [--admin [--password-stdin]]
                                          an admin gets a password (printed when generated);
                                          a regular user none: they use API keys
  token create --username U               print a new API key (shown once)
  credentials set VENDOR key=value…       add a credential set (several per vendor rotate)
  credentials list [VENDOR]
  credentials remove ID
`;

export async function intel(args: string[]): Promise<number | undefined> {
  const [command, ...rest] = args;
  switch (command) {
    case "serve":
      return serve(rest);
    case "worker":
      return worker();
    case "migrate":
      return withServices(async () => {
        process.stdout.write("database is up to date\n");
      });
    case "admin-url":
      return withServices(async (s) => {
        process.stdout.write(`${s.config.baseUrl}/${s.adminPath}/\n`);
      });
    case "user":
      return user(rest);
    case "token":
      return token(rest);
    case "credentials":
      return credentials(rest);
    case undefined:
    case "--help":
    case "help":
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      throw new UsageError(`unknown intel command "${command}"\n\n${USAGE}`);
  }
}

async function withServices(
  fn: (s: Awaited<ReturnType<typeof openIntelServices>>) => Promise<void>,
): Promise<number> {
  const services = await openIntelServices(readIntelConfig());
  try {
    await fn(services);
    return 0;
  } finally {
    await services.close();
  }
}

async function serve(args: string[]): Promise<undefined> {
  const { values } = parseArgs({
    args,
    options: { port: { type: "string" }, "no-worker": { type: "boolean" } },
  });
  const env = values.port ? { ...process.env, INTEL_PORT: values.port } : process.env;
  const common = readCommonConfig(env);
  const logger = createLogger(common.logLevel, "intel");
  const service = await startIntelService(common, readIntelConfig(env), logger, {
    worker: !values["no-worker"],
  });
  // The panel's path is a secret, and logs travel: `./loupe intel admin-url` (or `up`'s banner) prints it.
  logger.info(
    `intel listening on ${service.url} (docs: ${service.url}/api/docs/; the admin panel's URL: ./loupe intel admin-url)`,
  );
  closeOnSignals(logger, [service.close]);
  return undefined;
}

async function worker(): Promise<undefined> {
  const common = readCommonConfig();
  const logger = createLogger(common.logLevel, "intel-worker");
  const services = await startIntelWorker(readIntelConfig(), logger);
  logger.info("intel worker started");
  closeOnSignals(logger, [services.close]);
  return undefined;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function user(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "create")
    throw new UsageError("usage: ./loupe intel user create --username U [--admin] [--password-stdin]");
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: "string" },
      admin: { type: "boolean" },
      "password-stdin": { type: "boolean" },
    },
  });
  if (!values.username) throw new UsageError("--username is required");
  const password = values["password-stdin"] ? await readStdin() : undefined;
  return withServices(async (s) => {
    try {
      const { user: u, generatedPassword } = await createAccount(s.store.db, {
        username: values.username!,
        password,
        admin: values.admin ?? false,
      });
      process.stdout.write(`created ${u.is_admin ? "admin " : ""}user ${u.username}\n`);
      if (generatedPassword) process.stdout.write(`password (shown once): ${generatedPassword}\n`);
    } catch (err) {
      if (err instanceof AccountError) throw new UsageError(err.message);
      throw err;
    }
  });
}

async function token(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "create") throw new UsageError("usage: ./loupe intel token create --username U");
  const { values } = parseArgs({ args: rest, options: { username: { type: "string" } } });
  if (!values.username) throw new UsageError("--username is required");
  return withServices(async (s) => {
    try {
      const t = await issueApiKey(s.store.db, { username: values.username! });
      process.stdout.write(`${t.key}\n`);
    } catch (err) {
      if (err instanceof AccountError) throw new UsageError(err.message);
      throw err;
    }
  });
}

async function credentials(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  return withServices(async (s) => {
    if (sub === "set") {
      const [vendor, ...pairs] = rest;
      const connector = vendor ? connectorById(vendor, s.connectors) : undefined;
      if (!connector)
        throw new UsageError(
          `unknown vendor "${vendor ?? ""}"; known: ${s.connectors.map((c) => c.id).join(", ")}`,
        );
      const fields: Record<string, string> = {};
      for (const pair of pairs) {
        const i = pair.indexOf("=");
        if (i <= 0) throw new UsageError(`expected key=value, got "${pair}"`);
        fields[pair.slice(0, i)] = pair.slice(i + 1);
      }
      let id: number;
      try {
        id = await addCredentialSet(s.store.db, connector, fields);
      } catch (err) {
        if (err instanceof CredentialsError) throw new UsageError(err.message);
        throw err;
      }
      process.stdout.write(`added credentials #${id} for ${connector.id}\n`);
    } else if (sub === "list") {
      for (const c of await listCredentialSets(s.store.db, rest[0])) {
        process.stdout.write(
          `#${c.id} ${c.vendor} ${JSON.stringify(c.masked)} last used: ${c.last_used_at ?? "never"}\n`,
        );
      }
    } else if (sub === "remove") {
      const id = Number(rest[0]);
      if (!Number.isInteger(id)) throw new UsageError("usage: ./loupe intel credentials remove ID");
      if ((await removeCredentialSet(s.store.db, id)) === undefined)
        throw new UsageError(`no credentials #${id}`);
      process.stdout.write(`removed credentials #${id}\n`);
    } else {
      throw new UsageError("usage: ./loupe intel credentials set|list|remove …");
    }
  });
}
