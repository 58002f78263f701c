/**
 * A YARA soak against one real files process: hostile lanes (each its own remote address) cycle
 * through every hostile rule shape, runaway loops and requests abandoned mid-flight, while an
 * ordinary lane scans small files and checks every answer, and a health lane checks `GET /`
 * says ready. `./loupe bench yara` runs it for minutes.
 */
import type { RealProcess } from "../helpers/real-process.ts";
import {
  FILE_BOUNDED_LOOP,
  LOOP_FILE,
  ORDINARY_FILE,
  ORDINARY_RULES,
  YARA_CASES,
  type YaraCase,
} from "./yara-cases.ts";
import { clientFrom } from "./yara-clients.ts";

export interface SoakReport {
  ordinary: number;
  /** Ordinary scans whose answer was wrong or missing, with what came instead. */
  wrong: string[];
  hostile: number;
  /** Hostile answers outside their case's acceptable outcomes. */
  unexpected: string[];
  abandoned: number;
  healthChecks: number;
  /** Health answers that said an engine was not ready. */
  unhealthy: string[];
  /** Milliseconds each ordinary scan took, in order. */
  ordinaryMs: number[];
}

const RUNAWAY: YaraCase = {
  name: "runaway loop bounded by the file",
  rules: FILE_BOUNDED_LOOP,
  file: LOOP_FILE,
  accept: ["200:timeout"],
};
const SHAPES: YaraCase[] = [...YARA_CASES, RUNAWAY];

type Body = Record<string, unknown>;
const entryOf = (body: Body) => (body.processors as Record<string, Body> | undefined)?.rulematch;

function outcome(status: number, body: Body): string {
  if (status === 400) return `400:${body.code}`;
  const entry = entryOf(body);
  return `${status}:${entry?.success ? "ok" : entry?.error_short}`;
}

/**
 * One hostile lane: every shape in turn, a runaway loop between any two, and every third request
 * abandoned after 50–2,500 ms — some while queued behind a runaway killed at its 2 s budget.
 */
async function hostileLane(url: string, from: string, until: number, report: SoakReport, seed: number) {
  const client = clientFrom(from);
  try {
    for (let i = seed; Date.now() < until; i++) {
      const shape = (i % 2 === 0 ? SHAPES[(i / 2) % SHAPES.length] : RUNAWAY) as YaraCase;
      const abandon = i % 3 === 0 ? new AbortController() : undefined;
      const timer = abandon && setTimeout(() => abandon.abort(), 50 + ((i * 397) % 2450));
      try {
        const { status, body } = await client.post(
          url,
          shape.file ?? "hostile sample",
          { rules: shape.rules },
          abandon?.signal,
        );
        const got = outcome(status, body);
        report.hostile++;
        if (!shape.accept.includes(got)) report.unexpected.push(`${shape.name}: ${got}`);
      } catch (err) {
        if (!abandon?.signal.aborted) throw err;
        report.abandoned++;
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    await client.close();
  }
}

/** The ordinary lane: a small file that matches and one that does not, each answer checked. */
async function ordinaryLane(url: string, until: number, report: SoakReport) {
  const client = clientFrom("127.0.0.20");
  try {
    for (let i = 0; Date.now() < until; i++) {
      const matches = i % 2 === 0;
      const started = performance.now();
      const { status, body } = await client.post(url, matches ? ORDINARY_FILE : `nothing here ${i}`, {
        rules: ORDINARY_RULES,
      });
      report.ordinaryMs.push(performance.now() - started);
      report.ordinary++;
      const entry = entryOf(body);
      const rules = (
        (entry?.analysis as Body | undefined)?.matches as Array<{ rule: string }> | undefined
      )?.map((m) => m.rule);
      const expected = matches ? ["ordinary"] : [];
      if (status !== 200 || !entry?.success || JSON.stringify(rules) !== JSON.stringify(expected))
        report.wrong.push(`${status} ${JSON.stringify(entry ?? body).slice(0, 300)}`);
    }
  } finally {
    await client.close();
  }
}

async function healthLane(server: RealProcess, until: number, report: SoakReport) {
  while (Date.now() < until) {
    const engines = ((await (await fetch(`${server.url}/`)).json()) as Body).engines as Record<string, Body>;
    report.healthChecks++;
    for (const name of ["yara", "yara_native"]) {
      if (engines[name]?.ready !== true) report.unhealthy.push(`${name}: ${JSON.stringify(engines[name])}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Runs the soak for `durationMs` with `hostileLanes` hostile addresses (127.0.0.2 onwards). */
export async function yaraSoak(
  server: RealProcess,
  durationMs: number,
  hostileLanes: number,
): Promise<SoakReport> {
  const report: SoakReport = {
    ordinary: 0,
    wrong: [],
    hostile: 0,
    unexpected: [],
    abandoned: 0,
    healthChecks: 0,
    unhealthy: [],
    ordinaryMs: [],
  };
  const url = `${server.url}/analyzer/rulematch`;
  const until = Date.now() + durationMs;
  await Promise.all([
    ...Array.from({ length: hostileLanes }, (_, i) =>
      hostileLane(url, `127.0.0.${2 + i}`, until, report, i * 7),
    ),
    ordinaryLane(url, until, report),
    healthLane(server, until, report),
  ]);
  return report;
}
