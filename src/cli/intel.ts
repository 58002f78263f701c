/** `./loupe intel …`: the intel service, its worker, and the accounts, credentials and markings it needs. */
import os from "node:os";
import { parseArgs } from "node:util";
import { readCommonConfig } from "../common/config.ts";
import { createLogger } from "../common/logger.ts";
import { readIntelConfig } from "../intel/config.ts";
import {
  AccountError,
  accounts,
  apiKeysOf,
  createAccount,
  issueApiKey,
  revokeApiKey,
} from "../intel/services/accounts.ts";
import {
  addCredentialSet,
  CredentialsError,
  listCredentialSets,
  removeCredentialSet,
  testCredentialSet,
  testCredentials,
} from "../intel/services/credentials.ts";
import { enabledConnector, openIntelServices } from "../intel/services/index.ts";
import { MarkingError, markingLevel, setSubjectMarking } from "../intel/services/markings.ts";
import { INTEL_USAGE as USAGE, usageFor } from "./commands.ts";
import { readCredentialFields } from "./credential-input.ts";
import { UsageError } from "./usage.ts";

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
    case "marking":
      return marking(rest);
    case undefined:
    case "--help":
    case "help":
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      throw new UsageError(`unknown intel command "${command}"\n\n${USAGE}`);
  }
}

type Services = Awaited<ReturnType<typeof openIntelServices>>;

/** Runs `fn` with the services open; an account or credentials rule refused is a usage error (exit 2). */
async function withServices(fn: (s: Services) => Promise<unknown>): Promise<number> {
  const services = await openIntelServices(readIntelConfig());
  try {
    const code = await fn(services);
    return typeof code === "number" ? code : 0;
  } catch (err) {
    if (err instanceof AccountError || err instanceof CredentialsError) throw new UsageError(err.message);
    throw err;
  } finally {
    await services.close();
  }
}

/**
 * The HTTP server and worker, loaded only by the commands that run them: the account and
 * credentials commands would otherwise load some 1,400 modules they never use (a second a run).
 */
async function serverModules() {
  const [{ startIntelService, startIntelWorker }, { closeOnSignals }] = await Promise.all([
    import("./services.ts"),
    import("../common/http.ts"),
  ]);
  return { startIntelService, startIntelWorker, closeOnSignals };
}

async function serve(args: string[]): Promise<undefined> {
  const { values } = parseArgs({
    args,
    options: { port: { type: "string" }, "no-worker": { type: "boolean" } },
  });
  const env = values.port ? { ...process.env, INTEL_PORT: values.port } : process.env;
  const common = readCommonConfig(env);
  const logger = createLogger(common.logLevel, "intel");
  const { startIntelService, closeOnSignals } = await serverModules();
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
  const { startIntelWorker, closeOnSignals } = await serverModules();
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

function usernameOf(args: string[], usage: string): { username: string; positionals: string[] } {
  const { values, positionals } = parseArgs({
    args,
    options: { username: { type: "string" } },
    allowPositionals: true,
  });
  if (!values.username) throw new UsageError(`--username is required\n\n${usage}`);
  return { username: values.username, positionals };
}

async function user(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "list") return withServices(listUsers);
  if (sub !== "create") throw new UsageError(usageFor(["intel", "user"]));
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
    const { user: u, generatedPassword } = await createAccount(s, {
      username: values.username!,
      password,
      admin: values.admin ?? false,
    });
    process.stdout.write(`created ${u.is_admin ? "admin " : ""}user ${u.username}\n`);
    if (generatedPassword) process.stdout.write(`password (shown once): ${generatedPassword}\n`);
  });
}

async function listUsers(s: Services): Promise<void> {
  for (const u of await accounts.list(s)) {
    const role = u.is_admin ? "admin" : "user";
    const state = u.is_active ? "active" : "inactive";
    process.stdout.write(
      `#${u.id} ${u.username} ${role} ${state} keys: ${u.active_tokens} created: ${u.created_at}\n`,
    );
  }
}

async function token(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const usage = usageFor(["intel", "token", sub ?? ""]);
  if (sub === "create") {
    const { username } = usernameOf(rest, usage);
    return withServices(async (s) => {
      process.stdout.write(`${(await issueApiKey(s, { username })).key}\n`);
    });
  }
  if (sub === "list") {
    const { username } = usernameOf(rest, usage);
    return withServices(async (s) => {
      for (const k of await apiKeysOf(s, username))
        process.stdout.write(
          `#${k.id} ${k.prefix}… ${k.revoked ? "revoked" : "active"} created: ${k.created_at} last used: ${k.last_used_at ?? "never"}\n`,
        );
    });
  }
  if (sub === "revoke") {
    const { username, positionals } = usernameOf(rest, usage);
    const id = Number(positionals[0]);
    if (positionals.length !== 1 || !Number.isInteger(id)) throw new UsageError(usage);
    return withServices(async (s) => {
      await revokeApiKey(s, username, id);
      process.stdout.write(`revoked key #${id} of ${username}\n`);
    });
  }
  throw new UsageError(usageFor(["intel", "token"]));
}

async function credentials(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "set":
      return setCredentials(rest);
    case "test":
      return withServices((s) => testCredentialsCommand(s, rest));
    case "list":
      return withServices(async (s) => {
        for (const c of await listCredentialSets(s, rest[0]))
          process.stdout.write(
            `#${c.id} ${c.vendor} ${JSON.stringify(c.masked)} last used: ${c.last_used_at ?? "never"}\n`,
          );
      });
    case "remove": {
      const id = Number(rest[0]);
      if (!Number.isInteger(id)) throw new UsageError(usageFor(["intel", "credentials", "remove"]));
      return withServices(async (s) => {
        if (!(await removeCredentialSet(s, id))) throw new UsageError(`no credentials #${id}`);
        process.stdout.write(`removed credentials #${id}\n`);
      });
    }
    default:
      throw new UsageError(usageFor(["intel", "credentials"]));
  }
}

function connectorNamed(s: Services, vendor: string | undefined) {
  const connector = vendor ? enabledConnector(s, vendor) : undefined;
  if (!connector)
    throw new UsageError(
      `unknown vendor "${vendor ?? ""}"; known: ${s.connectors.map((c) => c.id).join(", ")}`,
    );
  return connector;
}

async function setCredentials(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { "from-file": { type: "string" } },
    allowPositionals: true,
  });
  const [vendor, ...pairs] = positionals;
  return withServices(async (s) => {
    const connector = connectorNamed(s, vendor);
    const fields = await readCredentialFields(connector, pairs, values["from-file"]);
    const id = await addCredentialSet(s, connector, fields);
    process.stdout.write(`added credentials #${id} for ${connector.id}\n`);
  });
}

const MARKING_USAGE = "usage: ./loupe intel marking set SUPER_TYPE TYPE VALUE [--tlp LEVEL] [--pap LEVEL]";

async function marking(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { tlp: { type: "string" }, pap: { type: "string" } },
  });
  const [superType, type, value] = positionals;
  if (sub !== "set" || !superType || !type || !value || positionals.length > 3)
    throw new UsageError(MARKING_USAGE);
  if (values.tlp === undefined && values.pap === undefined)
    throw new UsageError(`--tlp or --pap is needed\n${MARKING_USAGE}`);
  return withServices(async (s) => {
    try {
      const levels = {
        tlp: values.tlp === undefined ? undefined : markingLevel("TLP", values.tlp),
        pap: values.pap === undefined ? undefined : markingLevel("PAP", values.pap),
      };
      const actor = `cli:${os.userInfo().username}`;
      const done = await setSubjectMarking(s, actor, { superType, type, value }, levels);
      const { subject, before, after } = done;
      process.stdout.write(
        `${subject.superType} / ${subject.type} / ${subject.value}: TLP ${before.tlp} → ${after.tlp}, PAP ${before.pap} → ${after.pap}\n`,
      );
    } catch (err) {
      if (err instanceof MarkingError) throw new UsageError(err.message);
      throw err;
    }
  });
}

/**
 * One harmless call to the vendor per saved set (of the vendor named, or the set numbered), the
 * outcome kept as the set's last test as the panel's Test button does; exit 1 when one failed.
 */
async function testCredentialsCommand(s: Services, args: string[]): Promise<number> {
  const [target] = args;
  if (!target || args.length !== 1) throw new UsageError(usageFor(["intel", "credentials", "test"]));
  const byId = /^\d+$/.test(target);
  const sets = (await listCredentialSets(s)).filter((c) =>
    byId ? c.id === Number(target) : c.vendor === target,
  );
  if (byId && sets.length === 0) throw new UsageError(`no credentials #${target}`);
  const connector = connectorNamed(s, byId ? sets[0]?.vendor : target);
  if (sets.length === 0) {
    if (connector.credentialFields.length > 0)
      throw new UsageError(
        `no credentials for ${connector.id}: add a set with ./loupe intel credentials set`,
      );
    const outcome = await testCredentials(connector, {}, s.config);
    process.stdout.write(`${outcome.text}\n`);
    return outcome.ok ? 0 : 1;
  }
  let failed = 0;
  for (const set of sets) {
    const outcome = await testCredentialSet(s, connector, set.id, s.config);
    process.stdout.write(`#${set.id} ${outcome?.text ?? "removed meanwhile"}\n`);
    if (!outcome?.ok) failed++;
  }
  return failed > 0 ? 1 : 0;
}
