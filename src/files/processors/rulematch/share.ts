/**
 * One client's share of the rule scan workers: at most `perClient` of its scans run at once, the
 * rest wait in its own line (first come, first served), so a client looping costly rules holds
 * its share and never the whole pool. A client is the request's remote address (ctx.client).
 */

interface Line {
  running: number;
  waiting: Array<() => void>;
}

export class ClientShare {
  readonly perClient: number;
  readonly #lines = new Map<string, Line>();
  /** Scans that had to wait for their client's share since the start (health shows it). */
  held = 0;

  constructor(perClient: number) {
    this.perClient = perClient;
  }

  /** Waits for a place in `client`'s share; the returned function gives it back (call it once). */
  async enter(client: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    const line = this.#lines.get(client) ?? { running: 0, waiting: [] };
    this.#lines.set(client, line);
    if (line.running < this.perClient) line.running++;
    else {
      this.held++;
      await waitInLine(line, signal);
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#leave(client, line);
    };
  }

  /** Scans running now for `client` (tests and health). */
  running(client: string): number {
    return this.#lines.get(client)?.running ?? 0;
  }

  #leave(client: string, line: Line): void {
    const next = line.waiting.shift();
    if (next) {
      next(); // the place goes to the client's next scan: `running` stays the same
      return;
    }
    line.running--;
    if (line.running === 0) this.#lines.delete(client);
  }
}

/** Resolves when a leaving scan hands its place over; rejects (and leaves the line) on abort. */
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
