/** `./loupe intel …`: the intel service, its worker, and the accounts and credentials it needs. */
import { parseArgs } from "node:util";
import { readCommonConfig } from "../common/config.ts";
import { closeOnSignals } from "../common/http.ts";
import { createLogger } from "../common/logger.ts";
import { readIntelConfig } from "../intel/config.ts";
import { connectorById } from "../intel/connectors/registry.ts";
import { openIntelServices } from "../intel/server.ts";
import { AccountError, createToken, createUser, findUser } from "../intel/store/accounts.ts";
import { addCredentials, listCredentials, removeCredentials } from "../intel/store/credentials.ts";
import { randomHex } from "../intel/store/settings.ts";
import { startIntelService, startIntelWorker } from "./services.ts";
import { UsageError } from "./usage.ts";

const USAGE = `Usage: ./loupe intel <command>

  serve [--port N] [--no-worker]          the API and admin panel (with an embedded worker)
  worker                                  a standalone worker (up runs one; more scale out)
  migrate                                 create or update the database schema
  admin-url                               print the admin panel URL
  user create --username U [--admin] [--password-stdin]
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
  logger.info(
    `intel listening on ${service.url} (docs: ${service.url}/api/docs/, admin: ${service.adminUrl})`,
  );
  closeOnSignals(logger, [service.close]);
  return undefined;
}

async function worker(): Promise<undefined> {
  const common = readCommonConfig();
  const logger = createLogger(common.logLevel, "intel-worker");
  const services = await startIntelWorker(readIntelConfig());
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
  const generated = !values["password-stdin"];
  const password = generated ? randomHex(12)() : await readStdin();
  return withServices(async (s) => {
    try {
      const u = await createUser(s.store.db, values.username!, password, values.admin ?? false);
      process.stdout.write(`created ${u.is_admin ? "admin " : ""}user ${u.username}\n`);
      if (generated) process.stdout.write(`password (shown once): ${password}\n`);
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
    const u = await findUser(s.store.db, values.username!);
    if (!u) throw new UsageError(`no user "${values.username}"`);
    const t = await createToken(s.store.db, u.id);
    process.stdout.write(`${t.key}\n`);
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
      const missing = connector.credentialFields.filter((f) => !fields[f]);
      if (missing.length > 0) throw new UsageError(`${connector.id} needs ${missing.join(", ")}`);
      const unknown = Object.keys(fields).filter((f) => !connector.credentialFields.includes(f));
      if (unknown.length > 0)
        throw new UsageError(
          `${connector.id} takes ${connector.credentialFields.join(", ")}, not ${unknown.join(", ")}`,
        );
      const id = await addCredentials(s.store.db, connector.id, fields);
      process.stdout.write(`added credentials #${id} for ${connector.id}\n`);
    } else if (sub === "list") {
      for (const c of await listCredentials(s.store.db, rest[0])) {
        const masked = Object.fromEntries(
          Object.entries(c.fields).map(([k, v]) => [k, k === "url" ? v : `${v.slice(0, 4)}…`]),
        );
        process.stdout.write(
          `#${c.id} ${c.vendor} ${JSON.stringify(masked)} last used: ${c.last_used_at ?? "never"}\n`,
        );
      }
    } else if (sub === "remove") {
      const id = Number(rest[0]);
      if (!Number.isInteger(id)) throw new UsageError("usage: ./loupe intel credentials remove ID");
      if (!(await removeCredentials(s.store.db, id))) throw new UsageError(`no credentials #${id}`);
      process.stdout.write(`removed credentials #${id}\n`);
    } else {
      throw new UsageError("usage: ./loupe intel credentials set|list|remove …");
    }
  });
}
