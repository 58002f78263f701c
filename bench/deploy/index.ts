/**
 * `./loupe bench deploy`: the compose stack of deploy/compose.yaml, started with one command from
 * the images `./loupe image build` made — PostgreSQL, clamd (on Loupe's test signatures: no
 * signature mirror is reachable from test machines), files, the intel API, two workers, and the
 * fake VirusTotal of the `test` profile on the stack's network. Checks each one's health, an
 * EICAR upload, a thumbnail, pdftotext in the image, the admin panel at its path, a lookup
 * through the fake vendor whose worker is killed mid-call (the other worker takes the job once
 * the lease ends), `doctor` inside the image, and a clean stop. Prints how long each step took.
 * Not part of `./loupe test`.
 */
import { spawnSync } from "node:child_process";
import http from "node:http";
import { createServer } from "node:net";
import { EICAR } from "../../test/helpers/clamd.ts";
import { VT_KEY } from "../../test/helpers/fake-virustotal.ts";
import { postFile } from "../../test/helpers/files-server.ts";
import { solid } from "../../test/helpers/images.ts";
import { EICAR_MD5 } from "./fake-vendor.ts";
import { findEngine, Stack } from "./stack.ts";

const VENDOR_DELAY_MS = 30_000;
const LEASE_MS = 5000;
const IMAGES = ["localhost/loupe:latest", "localhost/loupe-postgres:latest", "localhost/loupe-clamav:latest"];
const SERVICES = ["postgres", "clamd", "files", "intel", "worker", "fake-vendor"];

const timings: Array<[string, number]> = [];
async function step<T>(name: string, work: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const result = await work();
  const seconds = (performance.now() - t0) / 1000;
  timings.push([name, seconds]);
  process.stdout.write(`  ✔ ${name} (${seconds.toFixed(1)} s)\n`);
  return result;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function assertThat(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

async function main(): Promise<number> {
  const engine = findEngine();
  if (typeof engine === "string") {
    process.stdout.write(`skipped: ${engine}\n`);
    return 0;
  }
  const missing = IMAGES.filter((i) => spawnOk(engine.cli, ["image", "inspect", i]) === false);
  if (missing.length > 0) {
    process.stdout.write(`missing images ${missing.join(", ")}: run ./loupe image build first\n`);
    return 1;
  }
  const stack = new Stack(
    engine,
    { files: await freePort(), intel: await freePort() },
    {
      vendorDelayMs: VENDOR_DELAY_MS,
      leaseMs: LEASE_MS,
    },
  );
  const t0 = performance.now();
  try {
    await runChecks(stack);
    process.stdout.write(`deploy bench passed in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    return 0;
  } catch (err) {
    const cause = err instanceof Error && err.cause ? ` (${String(err.cause)})` : "";
    process.stdout.write(`✖ ${err instanceof Error ? err.message : String(err)}${cause}\n`);
    for (const s of SERVICES) process.stdout.write(logsOf(stack, s));
    return 1;
  } finally {
    try {
      // LOUPE_BENCH_KEEP=1 leaves the stack running for a look (`podman-compose -p … down -v` after).
      if (process.env.LOUPE_BENCH_KEEP !== "1") stack.compose("down", "-v", "-t", "10");
    } catch (err) {
      process.stdout.write(`cleanup: ${String(err)}\n`);
    }
    stack.removeFiles();
  }
}

async function runChecks(stack: Stack): Promise<void> {
  const files = `http://127.0.0.1:${stack.ports.files}`;
  const intel = `http://127.0.0.1:${stack.ports.intel}`;
  await step("compose up (one command)", () => stack.compose("up", "-d", ...SERVICES));
  await step("every service healthy", () => waitHealthy(stack, files, intel));
  const key = await step("admin user, API key, VirusTotal credentials", () => setUp(stack));
  await step("EICAR upload detected by clamd", async () => {
    const body = (await (await postFile(`${files}/analyzer/antivirus`, EICAR, "eicar.com")).json()) as {
      processors: { antivirus: { analysis: { infected: boolean; description: string } } };
    };
    const av = body.processors.antivirus.analysis;
    assertThat(av.infected, `EICAR not detected: ${JSON.stringify(av)}`);
  });
  await step("thumbnail", async () => {
    const png = await solid(200, 100).png().toBuffer();
    const res = await postFile(`${files}/converter/thumbnail?width=64&height=64`, png, "in.png");
    const out = Buffer.from(await res.arrayBuffer());
    assertThat(res.status === 200 && out.subarray(1, 4).toString() === "PNG", `thumbnail: ${res.status}`);
  });
  await step("PDF pages read by pdftotext", async () => {
    const health = (await (await fetch(`${files}/`)).json()) as {
      engines: { pdf_text?: { detail: string } };
    };
    const detail = health.engines.pdf_text?.detail ?? "none";
    assertThat(detail.startsWith("poppler's pdftotext"), `PDF text in the image: ${detail}`);
  });
  await step("admin panel at its path", async () => {
    const res = await fetch(`${intel}/${stack.adminPath}/`, { redirect: "manual" });
    const body = await res.text();
    assertThat([200, 302, 303].includes(res.status), `admin panel answered ${res.status}`);
    assertThat(res.status !== 200 || /<form/i.test(body), "admin panel: no login form");
  });
  const killed = await step("lookup through the fake vendor, its worker killed mid-call", () =>
    lookupSurvivesKill(stack, intel, key),
  );
  await step("doctor inside the files container", () => doctorInside(stack));
  await step("clean stop (SIGTERM, every container exits 0)", () => cleanStop(stack, killed));
}

async function waitHealthy(stack: Stack, files: string, intel: string): Promise<void> {
  const ready = (service: string, ...probe: string[]) =>
    until(service, async () => (stack.cli("exec", stack.container(service), ...probe) ? true : undefined));
  await ready("postgres", "pg_isready", "-h", "/tmp", "-U", "loupe");
  await ready("clamd", "clamdscan", "--ping", "1", "--config-file=/etc/loupe/clamd-tcp.conf");
  for (const url of [files, intel])
    await until(url, async () => ((await statusOf(url)) === 200 ? true : undefined));
  const workers = stack.containers("worker");
  assertThat(workers.length === 2, `expected 2 workers, found ${workers.join(", ")}`);
  for (const w of workers)
    assertThat(stack.cli("inspect", "-f", "{{.State.Running}}", w).trim() === "true", `${w} is not running`);
}

async function setUp(stack: Stack): Promise<string> {
  stack.loupe(
    ["intel", "user", "create", "--username", "bench", "--admin", "--password-stdin"],
    "a-long-bench-password\n",
  );
  const key = /[0-9a-f]{40}/.exec(stack.loupe(["intel", "token", "create", "--username", "bench"]))?.[0];
  if (!key) throw new Error("no API key printed");
  // Secrets go on stdin: the command refuses them as arguments (shell history, the process list).
  stack.loupe(["intel", "credentials", "set", "virustotal"], `api_key=${VT_KEY}\n`);
  return key;
}

/** Asks about EICAR's MD5; kills the worker holding the job while the vendor holds its answer back. */
async function lookupSurvivesKill(stack: Stack, intel: string, key: string): Promise<string> {
  const post = (force: boolean) =>
    fetch(`${intel}/api/request/`, {
      method: "POST",
      headers: { authorization: `Token ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ super_type: "OBSERVABLE", type: "MD5", value: EICAR_MD5, force }),
    });
  // Once more on a network error: between two steps the service may have closed fetch's kept-alive
  // connection (its keep-alive timeout), and the retry opens a new one.
  const ask = (force: boolean) => post(force).catch(() => post(force));
  const first = await ask(true);
  assertThat(first.status === 201, `lookup answered ${first.status}: ${await first.text()}`);
  const holder = await until("a worker to claim the job", async () => {
    const out = psql(stack, "select worker from jobs where status = 'running'").trim();
    return out === "" ? undefined : out;
  });
  const victim = stack.containers("worker").find((c) => holder.startsWith(`${hostnameOf(stack, c)}/`));
  if (!victim) throw new Error(`no worker container matches the job holder ${holder}`);
  // Kill it while it waits for the vendor's answer (held back VENDOR_DELAY_MS).
  await until("the worker's call to reach the vendor", async () =>
    vendorCalls(stack) >= 1 ? true : undefined,
  );
  stack.cli("kill", victim);
  const killedAt = performance.now();
  const pending = await ask(false);
  assertThat(
    pending.status === 201,
    `the lookup was already done when its worker was killed (${pending.status})`,
  );
  process.stdout.write(`    killed ${victim} holding the job (${holder}) while it waited for the vendor\n`);
  const done = await until(
    "the lookup to finish on the other worker",
    async () => {
      const res = await ask(false);
      return res.status === 200
        ? ((await res.json()) as { root_entity: { attributes: Record<string, string> } })
        : undefined;
    },
    120_000,
  );
  assertThat(
    done.root_entity.attributes.vt_score === "61/76",
    `unexpected answer ${JSON.stringify(done.root_entity)}`,
  );
  const calls = vendorCalls(stack);
  assertThat(calls === 2, `the vendor was called ${calls} time(s), expected once more by the other worker`);
  const after = ((performance.now() - killedAt) / 1000).toFixed(1);
  process.stdout.write(
    `    the other worker finished the lookup ${after} s after the kill (lease ${LEASE_MS / 1000} s)\n`,
  );
  return victim;
}

/**
 * A GET on a connection of its own. fetch would keep it for the next call, and after a long
 * step the service has closed it (keep-alive timeout): the next upload then fails with EPIPE.
 */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on("error", reject);
  });
}

/** How many times the fake vendor was asked about EICAR (it logs each call). */
function vendorCalls(stack: Stack): number {
  const log = stack.cli("logs", stack.container("fake-vendor"));
  return log.split("\n").filter((l) => l.includes(EICAR_MD5)).length;
}

function hostnameOf(stack: Stack, container: string): string {
  return stack.cli("inspect", "-f", "{{.Config.Hostname}}", container).trim();
}

function psql(stack: Stack, query: string): string {
  return stack.cli(
    "exec",
    stack.container("postgres"),
    "psql",
    "-h",
    "/tmp",
    "-U",
    "loupe",
    "-d",
    "loupe",
    "-Atc",
    query,
  );
}

async function doctorInside(stack: Stack): Promise<void> {
  // In the files container: it has both the database and clamd (over TCP) in its settings.
  // doctor exits 1 when a check fails; its report says which, and the bench prints it whole.
  const out = stack.loupe(["doctor", "--json"], undefined, { anyExit: true, service: "files" });
  const report = JSON.parse(out) as { checks: Array<{ check: string; status: string; detail: string }> };
  for (const c of report.checks) process.stdout.write(`    doctor ${c.check}: ${c.status} — ${c.detail}\n`);
  const byName = (name: string) => report.checks.find((c) => c.check === name);
  assertThat(byName("database")?.status === "ok", "doctor: the database is not reachable and migrated");
  const clamd = byName("clamd");
  assertThat(
    clamd?.status === "warn" && /test signatures/.test(clamd.detail),
    `doctor should warn that clamd runs on test signatures only: ${JSON.stringify(clamd)}`,
  );
}

async function cleanStop(stack: Stack, killed: string): Promise<void> {
  stack.compose("stop", "-t", "30");
  for (const service of SERVICES) {
    for (const c of stack.containers(service)) {
      if (c === killed) continue;
      const code = stack.cli("inspect", "-f", "{{.State.ExitCode}}", c).trim();
      assertThat(code === "0", `${c} exited ${code} on stop`);
    }
  }
}

function logsOf(stack: Stack, service: string): string {
  try {
    return stack
      .containers(service)
      .map((c) => `--- ${c}\n${stack.cli("logs", "--tail", "30", c)}`)
      .join("\n");
  } catch {
    return "";
  }
}

function spawnOk(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
}

process.exit(await main());
