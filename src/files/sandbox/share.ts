/**
 * Fair turns at a set of workers (the rule scan workers, the extraction processes). At most
 * `total` jobs run at once and one client (the request's remote address, ctx.client) at most
 * `perClient` of them; when a place frees, it goes to the waiting client that used the least
 * worker time lately (a decaying sum), and a client's own jobs keep their order. Heavy clients
 * (`heavyMs` of worker time lately) hold at most `total - 1` places together: one stays for the
 * others, so costly work from several addresses cannot take every worker.
 */

interface Line {
  running: number;
  waiting: Array<() => void>;
  /** Worker milliseconds used, decayed with USAGE_HALF_LIFE_MS, as of `at`. */
  usage: number;
  at: number;
}

/**
 * How fast past use is forgotten: a client that ran one full scan budget stays heavy for about a
 * minute (with 10 s, four runaway clients taking turns decayed below heavy between turns).
 */
const USAGE_HALF_LIFE_MS = 60_000;

export class ClientShare {
  readonly perClient: number;
  readonly total: number;
  /** Worker time lately (decayed ms) from which a client is heavy. */
  readonly heavyMs: number;
  readonly #lines = new Map<string, Line>();
  #running = 0;
  /** Jobs that had to wait for their turn since the start (health shows it). */
  held = 0;

  constructor(perClient: number, total: number, heavyMs: number) {
    this.perClient = perClient;
    this.total = total;
    this.heavyMs = heavyMs;
  }

  /** Jobs running now, every client together. */
  get running(): number {
    return this.#running;
  }

  /** Whether `client` used `heavyMs` of worker time lately. */
  isHeavy(client: string): boolean {
    const line = this.#lines.get(client);
    return line !== undefined && decayed(line) >= this.heavyMs;
  }

  /** Waits for a turn for `client`; the returned function ends it (call it once). */
  async enter(client: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    const line = this.#lines.get(client) ?? { running: 0, waiting: [], usage: 0, at: Date.now() };
    this.#lines.set(client, line);
    if (line.waiting.length === 0 && this.#mayRun(line)) {
      line.running++;
      this.#running++;
    } else {
      this.held++;
      await waitInLine(line, signal);
    }
    const started = Date.now();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#leave(line, Date.now() - started);
    };
  }

  #leave(line: Line, ms: number): void {
    line.usage = decayed(line) + ms;
    line.at = Date.now();
    line.running--;
    this.#running--;
    this.#handOver();
    // Clients idle long enough to weigh nothing are forgotten: the map holds recent clients only.
    for (const [name, l] of this.#lines) {
      if (l.running === 0 && l.waiting.length === 0 && decayed(l) < 1) this.#lines.delete(name);
    }
  }

  #mayRun(line: Line): boolean {
    if (line.running >= this.perClient || this.#running >= this.total) return false;
    if (this.total < 2 || decayed(line) < this.heavyMs) return true;
    let heavy = 0;
    for (const l of this.#lines.values()) if (decayed(l) >= this.heavyMs) heavy += l.running;
    return heavy < this.total - 1;
  }

  /** Gives free places to the waiting clients that used the least, one place at a time. */
  #handOver(): void {
    while (this.#running < this.total) {
      let next: Line | undefined;
      for (const line of this.#lines.values()) {
        if (line.waiting.length === 0 || !this.#mayRun(line)) continue;
        if (!next || decayed(line) < decayed(next)) next = line;
      }
      if (!next) return;
      next.running++;
      this.#running++;
      (next.waiting.shift() as () => void)();
    }
  }
}

function decayed(line: Line): number {
  return line.usage * 0.5 ** ((Date.now() - line.at) / USAGE_HALF_LIFE_MS);
}

/** Resolves when a place is handed over; rejects (and leaves the line) on abort. */
function waitInLine(line: Line, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const given = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      const at = line.waiting.indexOf(given);
      if (at !== -1) line.waiting.splice(at, 1);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    line.waiting.push(given);
  });
}
