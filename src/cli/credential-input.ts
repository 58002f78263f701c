/**
 * Where `./loupe intel credentials set|test` reads a credential set from: `field=value` lines on
 * stdin or in `--from-file F`; on argv only fields that are not secrets (a MISP `url`), so a key
 * never sits in shell history or the process list. A lone line is the value of a vendor's one secret.
 */
import { readFile } from "node:fs/promises";
import type { Credentials } from "../intel/model/credentials.ts";
import type { Connector } from "../intel/services/index.ts";
import { UsageError } from "./usage.ts";

/** Fields shown whole (addresses); every other credential field is a secret. */
const NOT_SECRET = new Set(["url"]);

const secretFields = (c: Connector) => c.credentialFields.filter((f) => !NOT_SECRET.has(f));

/** `field=value` pairs from argv: only fields that are not secrets. */
export function argvFields(connector: Connector, pairs: string[]): Credentials {
  const fields: Credentials = {};
  for (const pair of pairs) {
    const i = pair.indexOf("=");
    if (i <= 0) throw new UsageError(`expected field=value, got "${pair}"`);
    const name = pair.slice(0, i);
    if (connector.credentialFields.includes(name) && !NOT_SECRET.has(name))
      throw new UsageError(
        `${name} is a secret: give it on stdin or with --from-file F, not on the command line (shell history and the process list keep it)`,
      );
    fields[name] = pair.slice(i + 1);
  }
  return fields;
}

/** The pairs of a stdin or file text: `field=value` lines (blank lines and `#` comments skipped). */
export function parseFieldLines(connector: Connector, text: string, origin: string): Credentials {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const secrets = secretFields(connector);
  const fields: Credentials = {};
  for (const line of lines) {
    const i = line.indexOf("=");
    const name = i > 0 ? line.slice(0, i) : "";
    if (connector.credentialFields.includes(name)) {
      fields[name] = line.slice(i + 1).trim();
    } else if (lines.length === 1 && secrets.length === 1 && !/^[a-z][a-z0-9_]*=/.test(line)) {
      fields[secrets[0] as string] = line;
    } else {
      const known = connector.credentialFields.join(", ") || "no credentials";
      throw new UsageError(`${origin}: expected field=value lines (${connector.vendor} takes ${known})`);
    }
  }
  return fields;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === "string" ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The set to save or try: argv's non-secret pairs plus the file's lines, or stdin's when a secret
 * is still missing (a terminal is told what to type).
 */
export async function readCredentialFields(
  connector: Connector,
  pairs: string[],
  fromFile: string | undefined,
): Promise<Credentials> {
  const fields = argvFields(connector, pairs);
  if (fromFile !== undefined) {
    const text = await readFile(fromFile, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${fromFile}: ${err.code ?? err.message}`);
    });
    return { ...fields, ...parseFieldLines(connector, text, fromFile) };
  }
  if (secretFields(connector).every((f) => f in fields)) return fields;
  if (process.stdin.isTTY)
    process.stderr.write(
      `${connector.vendor}: type ${secretFields(connector).join(", ")} as field=value lines, then Ctrl-D\n`,
    );
  return { ...fields, ...parseFieldLines(connector, await readAll(process.stdin), "stdin") };
}
