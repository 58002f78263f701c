/**
 * Failed-login throttling, per username and per client address: past the limit, logins for that
 * key are refused (even with the right password) until the window has passed. Each attempt is
 * counted (reserved) before the slow password hash runs and refunded only when it succeeds, so
 * concurrent guesses cannot all pass the check. In memory, per intel process, bounded in size.
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

  /**
   * Counts one login attempt, or says why it is refused right now. Call it before checking the
   * password: the check and the count happen in one synchronous step, so no concurrent attempt
   * can slip between them.
   */
  reserve(ip: string, username: string): { reason: "user" | "ip"; retryInMs: number } | undefined {
    for (const [key, limit, reason] of this.keys(ip, username)) {
      const w = this.live(key);
      if (w && w.failures >= limit) {
        return { reason, retryInMs: w.startedAt + this.limits.windowMs - this.now() };
      }
    }
    if (this.windows.size >= MAX_KEYS) this.prune();
    for (const [key] of this.keys(ip, username)) {
      const w = this.live(key) ?? { failures: 0, startedAt: this.now() };
      w.failures += 1;
      this.windows.set(key, w);
    }
    return undefined;
  }

  /**
   * A successful login: the user's failures are forgotten, and the address gets back the attempt
   * reserved for it (not its earlier failures: one good account must not unlock guessing).
   */
  succeeded(ip: string, username: string): void {
    this.windows.delete(`user:${username.toLowerCase()}`);
    const w = this.live(`ip:${ip}`);
    if (w) w.failures = Math.max(0, w.failures - 1);
  }

  /** How long this username stays locked out, or undefined when it is not. */
  lockedFor(username: string): number | undefined {
    const w = this.live(`user:${username.toLowerCase()}`);
    if (!w || w.failures < this.limits.failuresPerUser) return undefined;
    return w.startedAt + this.limits.windowMs - this.now();
  }

  /** An admin lifts a username's lock (its address counts stay: they guard against guessing). */
  unlock(username: string): boolean {
    return this.windows.delete(`user:${username.toLowerCase()}`);
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
