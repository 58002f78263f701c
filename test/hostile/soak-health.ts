/**
 * Whether the files service's health (`GET /`) is true to what it says, for the soak: every engine
 * ready, the counts it gives within their bounds, the processes it says it started alive as its
 * children (read from /proc), and — once the hostile traffic stops — nothing running or waiting,
 * every process idle, nothing the watchdog had to replace.
 */
import { readdir, readFile } from "node:fs/promises";

const ENGINES = ["sharp", "extractor", "clamd", "yara", "yara_native", "yara_share", "iocs"];

/** A pool of processes as health describes it: "2 of 2 … started (0 busy, 2 idle, 0 starting, 0 waiting)". */
interface PoolClaims {
  started: number;
  size: number;
  busy: number;
  idle: number;
  starting: number;
  waiting: number;
}

interface Claims {
  extraction: PoolClaims & { running: number };
  native: PoolClaims;
  wasm: { started: number; size: number };
  iocs: { started: number; size: number };
  /** Every engine's detail, for the watchdog's word. */
  text: string;
}

type Engines = Record<string, { ready?: boolean; detail?: string }>;

const numbers = (text: string | undefined, pattern: RegExp, what: string): number[] => {
  const m = pattern.exec(text ?? "");
  if (!m) throw new Error(`health no longer says ${what}: ${text}`);
  return m.slice(1).map((n) => Number(n ?? 0));
};

function poolClaims(detail: string | undefined, noun: string): PoolClaims {
  const state = "(?: \\((\\d+) busy, (\\d+) idle, (\\d+) starting, (\\d+) waiting\\))?";
  const [started = 0, size = 0, busy = 0, idle = 0, starting = 0, waiting = 0] = numbers(
    detail,
    new RegExp(`(\\d+) of (\\d+) ${noun} started${state}`),
    noun,
  );
  return { started, size, busy, idle, starting, waiting };
}

/** The counts health gives, read from its details. */
function claimsOf(engines: Engines): Claims {
  const extractor = engines.extractor?.detail;
  const [running = 0] = numbers(extractor, /(\d+) running/, "extractions running");
  const [wStarted = 0, wSize = 0] = numbers(
    engines.yara?.detail,
    /(\d+) of (\d+) workers started/,
    "YARA workers",
  );
  const [iStarted = 0, iSize = 0] = numbers(
    engines.iocs?.detail,
    /(\d+) of (\d+) workers started/,
    "iocs workers",
  );
  return {
    extraction: { ...poolClaims(extractor, "extraction processes"), running },
    native: poolClaims(engines.yara_native?.detail, "native scan processes"),
    wasm: { started: wStarted, size: wSize },
    iocs: { started: iStarted, size: iSize },
    text: Object.values(engines)
      .map((e) => e.detail ?? "")
      .join("\n"),
  };
}

/** The service's live (not zombie) child processes, by what they run. */
export async function childProcesses(
  pid: number,
): Promise<{ extraction: number; native: number; thumbnail: number }> {
  const counts = { extraction: 0, native: 0, thumbnail: 0 };
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => []);
  const children = new Set<string>();
  for (const task of tasks) {
    const listed = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "");
    for (const child of listed.split(/\s+/).filter(Boolean)) children.add(child);
  }
  for (const child of children) {
    const stat = await readFile(`/proc/${child}/stat`, "utf8").catch(() => "");
    if (!stat || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
    const cmdline = await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("extractor/worker.ts")) counts.extraction++;
    else if (cmdline.includes("native/child.ts")) counts.native++;
    else if (cmdline.includes("thumbnail-child")) counts.thumbnail++;
  }
  return counts;
}

/** What health says now: its engines and their counts, or why it could not be read. */
async function readHealth(url: string): Promise<{ engines: Engines; claims: Claims }> {
  const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status?: string; engines?: Engines };
  if (res.status !== 200 || body.status !== "ok")
    throw new Error(`health answered ${res.status} ${body.status}`);
  const engines = body.engines ?? {};
  return { engines, claims: claimsOf(engines) };
}

/** Lies that hold at any moment: an engine not ready, a count past its bound, processes that are not there. */
function boundLies(engines: Engines, c: Claims, live: Awaited<ReturnType<typeof childProcesses>>): string[] {
  const lies: string[] = [];
  for (const name of ENGINES)
    if (engines[name]?.ready !== true) lies.push(`${name} not ready: ${JSON.stringify(engines[name])}`);
  const pools = { extraction: c.extraction, native: c.native };
  for (const [name, pool] of Object.entries({ ...pools, wasm: c.wasm, iocs: c.iocs }))
    if (pool.started > pool.size) lies.push(`${pool.started} of ${pool.size} ${name} started`);
  for (const [name, p] of Object.entries(pools)) {
    if (p.busy + p.idle + p.starting > p.started)
      lies.push(`${name}: ${p.busy} busy + ${p.idle} idle + ${p.starting} starting of ${p.started} started`);
    if (p.started !== live[name as keyof typeof pools])
      lies.push(`${name}: ${p.started} processes said started, ${live[name as keyof typeof pools]} alive`);
  }
  return lies;
}

/** Lies once nothing is sent: work said running or waiting, processes neither idle nor starting, a watchdog repair. */
function settledLies(c: Claims): string[] {
  const lies: string[] = [];
  if (c.extraction.running !== 0)
    lies.push(`${c.extraction.running} extractions said running with none sent`);
  for (const [name, p] of Object.entries({ extraction: c.extraction, native: c.native })) {
    if (p.busy !== 0 || p.waiting !== 0)
      lies.push(`${name}: ${p.busy} busy, ${p.waiting} waiting with nothing sent`);
    if (p.idle + p.starting !== p.started)
      lies.push(`${name}: ${p.started} started but ${p.idle} idle, ${p.starting} starting`);
  }
  if (/watchdog/.test(c.text))
    lies.push(`a pool lost a process: ${c.text.split("\n").find((l) => /watchdog/.test(l))}`);
  return lies;
}

/**
 * Reads health (and the service's children) up to `tries` times, 500 ms apart, until it is true:
 * a count read while a process starts or ends may lag by one, a lie persists. Resolves with the
 * lies of the last read (none when health was true).
 */
export async function healthLies(url: string, pid: number, settled: boolean, tries = 4): Promise<string[]> {
  let lies: string[] = [];
  for (let i = 0; i < tries; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 500));
    try {
      const { engines, claims } = await readHealth(url);
      lies = [
        ...boundLies(engines, claims, await childProcesses(pid)),
        ...(settled ? settledLies(claims) : []),
      ];
    } catch (err) {
      lies = [`health unreadable: ${err instanceof Error ? err.message : String(err)}`];
    }
    if (lies.length === 0) return [];
  }
  return lies;
}
