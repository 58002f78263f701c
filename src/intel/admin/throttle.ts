/**
 * Failed-login throttling, per username and per client address: past the limit, logins for that
 * key are refused (even with the right password) until the window has passed. Kept in memory,
 * per intel process; bounded so a flood of distinct names cannot grow it without end.
 */
export interface ThrottleLimits {
  failuresPerUser: number;
  failuresPerIp: number;
  windowMs: number;
}

interface Window {
  failures: number;
  startedAt: number;
}

const MAX_KEYS = 50_000;

export class LoginThrottle {
  private readonly windows = new Map<string, Window>();
  private readonly limits: ThrottleLimits;
  private readonly now: () => number;

  constructor(limits: ThrottleLimits, now: () => number = Date.now) {
    this.limits = limits;
    this.now = now;
  }

  /** Why a login from this address for this username is refused right now, if it is. */
  blocked(ip: string, username: string): { reason: "user" | "ip"; retryInMs: number } | undefined {
    for (const [key, limit, reason] of this.keys(ip, username)) {
      const w = this.live(key);
      if (w && w.failures >= limit) {
        return { reason, retryInMs: w.startedAt + this.limits.windowMs - this.now() };
      }
    }
    return undefined;
  }

  failed(ip: string, username: string): void {
    if (this.windows.size >= MAX_KEYS) this.prune();
    for (const [key] of this.keys(ip, username)) {
      const w = this.live(key) ?? { failures: 0, startedAt: this.now() };
      w.failures += 1;
      this.windows.set(key, w);
    }
  }

  /** A successful login forgets the user's failures (not the address's: one good account must not unlock guessing). */
  succeeded(username: string): void {
    this.windows.delete(`user:${username.toLowerCase()}`);
  }

  private keys(ip: string, username: string): Array<[string, number, "user" | "ip"]> {
    return [
      [`user:${username.toLowerCase()}`, this.limits.failuresPerUser, "user"],
      [`ip:${ip}`, this.limits.failuresPerIp, "ip"],
    ];
  }

  private live(key: string): Window | undefined {
    const w = this.windows.get(key);
    if (w && this.now() - w.startedAt >= this.limits.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private prune(): void {
    for (const key of [...this.windows.keys()]) this.live(key);
    // Still full of live entries: drop the oldest half rather than grow.
    if (this.windows.size >= MAX_KEYS) {
      const oldest = [...this.windows.entries()].sort((a, b) => a[1].startedAt - b[1].startedAt);
      for (const [key] of oldest.slice(0, MAX_KEYS / 2)) this.windows.delete(key);
    }
  }
}
