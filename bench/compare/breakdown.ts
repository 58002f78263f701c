/**
 * Where the CPU of a thumbnail request goes, by process and thread, read from /proc (user and
 * system time, minor page faults, context switches), so the figures hold on a loaded machine:
 * `node bench/compare/breakdown.ts small|photos [in flight] [rounds]`. A files server is started,
 * warmed up, then sent every image of the load `rounds` times; each thread's counters are read
 * before and after. Threads that ended in between count under "(ended threads)".
 */
import { readdirSync, readFileSync } from "node:fs";
import { fmt, runConcurrent } from "../lib/measure.ts";
import { postPrepared } from "../lib/multipart.ts";
import { startChildServer } from "../lib/server.ts";
import { callsFor } from "./calls.ts";

const [load = "small", inFlight = "1", rounds = "20"] = process.argv.slice(2);
const TICK_MS = 10; // USER_HZ 100

interface Counters {
  user: number;
  sys: number;
  faults: number;
  switches: number;
}

const zero = (): Counters => ({ user: 0, sys: 0, faults: 0, switches: 0 });

function readCounters(dir: string): Counters | undefined {
  try {
    const stat = readFileSync(`${dir}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const status = readFileSync(`${dir}/status`, "utf8");
    const switches = [...status.matchAll(/ctxt_switches:\s+(\d+)/g)].reduce((s, m) => s + Number(m[1]), 0);
    // After the name: minflt is field 10 (index 7), utime 14 (11), stime 15 (12).
    return {
      faults: Number(fields[7]),
      user: Number(fields[11]) * TICK_MS,
      sys: Number(fields[12]) * TICK_MS,
      switches,
    };
  } catch {
    return undefined; // ended
  }
}

const threadName = (dir: string) => readFileSync(`${dir}/comm`, "utf8").trim();

/** Every thread of the server and its descendants, keyed "role/thread name/tid", plus each process's totals. */
function snapshot(serverPid: number): Map<string, Counters> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const out = new Map<string, Counters>();
  for (const pid of parents.keys()) {
    const role =
      pid === serverPid ? "server" : descends(pid, serverPid, parents) ? `child ${pid}` : undefined;
    if (!role) continue;
    const total = readCounters(`/proc/${pid}`);
    if (total) out.set(`${role}|(process total)`, total);
    for (const tid of safeList(`/proc/${pid}/task`)) {
      const dir = `/proc/${pid}/task/${tid}`;
      const c = readCounters(dir);
      if (c) out.set(`${role}|${safeName(dir)}|${tid}`, c);
    }
  }
  return out;
}

const safeList = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const safeName = (dir: string) => {
  try {
    return threadName(dir);
  } catch {
    return "?";
  }
};

function descends(pid: number, ancestor: number, parents: Map<number, number>): boolean {
  for (let at = parents.get(pid) ?? 0, hops = 0; at > 1 && hops < 64; hops++) {
    if (at === ancestor) return true;
    at = parents.get(at) ?? 0;
  }
  return false;
}

/** Per request, grouped by process role ("server" or "children") and thread name. */
function difference(before: Map<string, Counters>, after: Map<string, Counters>, n: number) {
  const groups = new Map<string, Counters>();
  const add = (key: string, c: Counters) => {
    const g = groups.get(key) ?? zero();
    g.user += c.user / n;
    g.sys += c.sys / n;
    g.faults += c.faults / n;
    g.switches += c.switches / n;
    groups.set(key, g);
  };
  const threadSums = new Map<string, Counters>();
  for (const [key, c] of after) {
    const b = before.get(key) ?? zero();
    const d = {
      user: c.user - b.user,
      sys: c.sys - b.sys,
      faults: c.faults - b.faults,
      switches: c.switches - b.switches,
    };
    const [role = "", name = ""] = key.split("|");
    const group = role === "server" ? "server" : "children";
    if (name === "(process total)") add(`${group}|(process total)`, d);
    else {
      add(`${group}|${name}`, d);
      const s = threadSums.get(role) ?? zero();
      threadSums.set(role, { user: s.user + d.user, sys: s.sys + d.sys, faults: 0, switches: 0 });
    }
  }
  // What the process totals hold beyond its live threads: threads that ended during the run.
  for (const [key, c] of after) {
    const [role = "", name = ""] = key.split("|");
    if (name !== "(process total)") continue;
    const b = before.get(key) ?? zero();
    const live = threadSums.get(role) ?? zero();
    const group = role === "server" ? "server" : "children";
    add(`${group}|(ended threads)`, {
      user: c.user - b.user - live.user,
      sys: c.sys - b.sys - live.sys,
      faults: 0,
      switches: 0,
    });
  }
  return groups;
}

const list = await callsFor(load);
const server = await startChildServer(["files", "serve"], { CLAMD_SOCKET: "/nonexistent" });
try {
  const post = (i: number) => {
    const c = list[i % list.length] as (typeof list)[number];
    return postPrepared(server.url + c.path, c.body);
  };
  await runConcurrent(list.length * 2, Number(inFlight), post);
  const total = list.length * Number(rounds);
  const before = snapshot(server.pid);
  const stats = await runConcurrent(total, Number(inFlight), post);
  const groups = difference(before, snapshot(server.pid), total);
  console.log(
    `${load}, ${inFlight} in flight, ${total} requests, ${fmt(stats.perSecond)} req/s; per request:`,
  );
  const rows = [...groups]
    .filter(([, c]) => c.user + c.sys > 0 || c.switches > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, c]) => ({
      "process | thread": key,
      "user ms": fmt(c.user, 2),
      "sys ms": fmt(c.sys, 2),
      "minor faults": fmt(c.faults, 0),
      switches: fmt(c.switches, 1),
    }));
  console.table(rows);
} finally {
  await server.stop();
}
