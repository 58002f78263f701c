/**
 * The soak (issue 27): one long-running files process (and a real clamd) takes every hostile shape
 * (test/hostile/soak-shapes.ts) from several addresses at once, some abandoned mid-flight, while
 * ordinary clients ask small extractions, rule matches, thumbnails and antivirus scans and check
 * every answer, and health is read every few seconds and checked against the processes it counts.
 * Once the hostile lanes stop, the process must settle and answer every ordinary kind again.
 * Shared by the suite (seconds, test/hostile/soak.test.ts) and `./loupe bench soak` (minutes).
 */
import { startTestClamd } from "../helpers/clamd.ts";
import { type RealProcess, startFilesProcess } from "../helpers/real-process.ts";
import { healthLies } from "./soak-health.ts";
import { ORDINARY_KINDS } from "./soak-ordinary.ts";
import type { Shape, SoakLimits } from "./soak-requests.ts";
import { clientFrom } from "./yara-clients.ts";

export interface SoakReport {
  /** Milliseconds each ordinary request took, by kind. */
  ordinaryMs: Record<string, number[]>;
  /** Ordinary requests answered wrong, late or not at all: must stay empty. */
  failures: string[];
  /** Hostile answers by kind, then by outcome. */
  hostile: Record<string, Record<string, number>>;
  /** Hostile answers outside their shape's right outcomes. */
  unexpected: string[];
  healthChecks: number;
  /** Health checks that found nothing untrue. */
  healthPassed: number;
  /** What health said that was not so (during the soak, then once settled): must stay empty. */
  healthLies: string[];
}

export interface SoakOptions {
  durationMs: number;
  shapes: Shape[];
  /** Hostile lanes, each from its own address (127.0.0.2 onwards). */
  hostileLanes: number;
  /** An ordinary answer later than this is a failure. */
  ordinaryBoundMs: number;
  /** A hostile answer later than this is unexpected (the longest limit, plus slack). */
  hostileBoundMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An error and its cause (undici's `fetch failed` says why only there). */
const message = (err: unknown): string =>
  err instanceof Error
    ? `${err.name}: ${err.message}${err.cause ? ` (${message(err.cause)})` : ""}`
    : String(err);

/** The limits the soak's files process runs with: tight enough that hostile work ends in seconds. */
export const SOAK_LIMITS: SoakLimits = {
  maxFileSize: 64_000_000,
  maxFieldSize: 4_000_000,
  // A client on a loaded machine can go unscheduled for seconds (3–6 s seen at load 20 on 2 cores).
  bodyIdleMs: 10_000,
};

export interface SoakTarget {
  files: RealProcess;
  /** What the service logged at warn level or above, by level and message ("error: …"), with how often. */
  logged: Map<string, number>;
  close(): Promise<void>;
}

/** Counts the messages of the pino lines in `chunk` at warn level (40) or above. */
function countWarnings(logged: Map<string, number>) {
  let partial = "";
  return (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      let entry: { level?: number; msg?: string; err?: { message?: string } } = {};
      try {
        entry = JSON.parse(line);
      } catch {
        entry = { level: 40, msg: line.slice(0, 200) }; // not pino's: printed by something else
      }
      const level = (entry.level ?? 0) >= 50 ? "error" : "warn";
      const said = `${level}: ${entry.msg ?? ""}${entry.err?.message ? `: ${entry.err.message.slice(0, 200)}` : ""}`;
      if ((entry.level ?? 0) >= 40) logged.set(said, (logged.get(said) ?? 0) + 1);
    }
  };
}

/** The service's error-level log lines: a hostile client must never cause one. */
export const errorsLogged = (target: SoakTarget): string[] =>
  [...target.logged].filter(([said]) => said.startsWith("error:")).map(([said, n]) => `${n} × ${said}`);

/** A real clamd and one files process using it, with the soak's limits. */
export async function startSoakTarget(): Promise<SoakTarget> {
  const clamd = await startTestClamd();
  const logged = new Map<string, number>();
  const files = await startFilesProcess(
    {
      CLAMD_SOCKET: "socket" in clamd.address ? clamd.address.socket : "",
      MAX_FILE_SIZE: String(SOAK_LIMITS.maxFileSize),
      MAX_FORM_FIELD_SIZE: String(SOAK_LIMITS.maxFieldSize),
      HTTP_BODY_IDLE_TIMEOUT_MS: String(SOAK_LIMITS.bodyIdleMs),
      EXTRACT_WORKERS: "2",
      EXTRACT_MEMORY_MB: "512",
      EXTRACT_TIMEOUT_MS: "30000",
      EXTRACT_MAX_ARCHIVE_BYTES: "50000000",
      YARA_WORKERS: "2",
      SCAN_TIMEOUT_MS: "20000",
    },
    countWarnings(logged),
  );
  return {
    files,
    logged,
    close: async () => {
      await files.close();
      await clamd.stop();
    },
  };
}

/** One hostile lane: the shapes in turn from `first`, every fourth abandonable one abandoned after 50–2,500 ms. */
async function hostileLane(
  url: string,
  address: string,
  first: number,
  until: number,
  o: SoakOptions,
  r: SoakReport,
) {
  const client = clientFrom(address);
  try {
    for (let i = first; Date.now() < until; i++) {
      const shape = o.shapes[i % o.shapes.length] as Shape;
      const abandon =
        shape.abandonable && i % 4 === 0 ? AbortSignal.timeout(50 + ((i * 397) % 2450)) : undefined;
      const late = AbortSignal.timeout(o.hostileBoundMs);
      let outcome: string;
      try {
        outcome = await shape.send({ url, client }, abandon ? AbortSignal.any([abandon, late]) : late);
      } catch (err) {
        outcome = abandon?.aborted
          ? "abandoned"
          : late.aborted
            ? "no answer in time"
            : `failed (${message(err)})`;
      }
      const byOutcome = r.hostile[shape.kind] ?? {};
      byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
      r.hostile[shape.kind] = byOutcome;
      if (outcome !== "abandoned" && !shape.accept.includes(outcome))
        r.unexpected.push(`${shape.kind} "${shape.name}": ${outcome} (right: ${shape.accept.join(", ")})`);
    }
  } finally {
    await client.close();
  }
}

/** Asks one ordinary request of `kind` and records its time, or what was wrong. */
async function askOrdinary(
  url: string,
  kindIndex: number,
  i: number,
  client: ReturnType<typeof clientFrom>,
  o: SoakOptions,
  r: SoakReport,
) {
  const kind = ORDINARY_KINDS[kindIndex] as (typeof ORDINARY_KINDS)[number];
  const started = performance.now();
  let wrong: string | null;
  try {
    wrong = await kind.ask(client, url, i, AbortSignal.timeout(o.ordinaryBoundMs));
  } catch (err) {
    wrong = `no answer (${message(err)})`;
  }
  const times = r.ordinaryMs[kind.name] ?? [];
  times.push(performance.now() - started);
  r.ordinaryMs[kind.name] = times;
  if (wrong !== null) r.failures.push(`${kind.name} #${i} at ${new Date().toISOString()}: ${wrong}`);
}

/** One ordinary lane per kind, each from its own address, a request every quarter second or so. */
async function ordinaryLane(url: string, kindIndex: number, until: number, o: SoakOptions, r: SoakReport) {
  const client = clientFrom(`127.0.0.${40 + kindIndex}`);
  try {
    for (let i = 0; Date.now() < until; i++) {
      await askOrdinary(url, kindIndex, i, client, o, r);
      await sleep(250);
    }
  } finally {
    await client.close();
  }
}

async function healthLane(files: RealProcess, until: number, r: SoakReport) {
  while (Date.now() < until) {
    const lies = await healthLies(files.url, files.pid, false);
    r.healthChecks++;
    if (lies.length === 0) r.healthPassed++;
    for (const lie of lies) r.healthLies.push(`${new Date().toISOString()}: ${lie}`);
    await sleep(2000);
  }
}

/** Builds every shape's payload (before the clock starts: building some takes seconds). */
export async function prepareShapes(shapes: Shape[]): Promise<void> {
  for (const shape of shapes) await shape.prepare();
}

/**
 * One right answer of every ordinary kind before the clock starts: a long-running process has
 * started its pools and compiled its engines, and a cold start on a loaded machine (ten seconds
 * and more for a first scan) is not what the soak measures. Three tries each; a kind never
 * answered right is a failure.
 */
async function warmUp(url: string, o: SoakOptions, r: SoakReport): Promise<void> {
  const client = clientFrom("127.0.0.60");
  try {
    for (const kind of ORDINARY_KINDS) {
      let wrong: string | null = "not asked";
      for (let i = 0; i < 3 && wrong !== null; i++)
        wrong = await kind.ask(client, url, i, AbortSignal.timeout(o.ordinaryBoundMs)).catch(message);
      if (wrong !== null) r.failures.push(`${kind.name} while warming up: ${wrong}`);
    }
  } finally {
    await client.close();
  }
}

/** Runs the soak against `files`; the shapes must be prepared. */
export async function soak(files: RealProcess, o: SoakOptions): Promise<SoakReport> {
  const r: SoakReport = {
    ordinaryMs: {},
    failures: [],
    hostile: {},
    unexpected: [],
    healthChecks: 0,
    healthPassed: 0,
    healthLies: [],
  };
  await warmUp(files.url, o, r);
  const until = Date.now() + o.durationMs;
  const spread = Math.ceil(o.shapes.length / o.hostileLanes);
  await Promise.all([
    ...Array.from({ length: o.hostileLanes }, (_, lane) =>
      hostileLane(files.url, `127.0.0.${2 + lane}`, lane * spread, until, o, r),
    ),
    ...ORDINARY_KINDS.map((_, k) => ordinaryLane(files.url, k, until, o, r)),
    healthLane(files, until, r),
  ]);
  await settle(files, o, r);
  return r;
}

/** Once the lanes stop: health settles (within a minute) and is true, and every ordinary kind answers right. */
async function settle(files: RealProcess, o: SoakOptions, r: SoakReport) {
  const lies = await healthLies(files.url, files.pid, true, 120);
  r.healthChecks++;
  if (lies.length === 0) r.healthPassed++;
  for (const lie of lies) r.healthLies.push(`settled: ${lie}`);
  const client = clientFrom("127.0.0.60");
  try {
    for (let k = 0; k < ORDINARY_KINDS.length; k++)
      for (const i of [0, 1]) await askOrdinary(files.url, k, i, client, o, r);
  } finally {
    await client.close();
  }
}
