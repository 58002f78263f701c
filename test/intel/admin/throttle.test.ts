/** Login throttling per username and per address, on a clock the test controls. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LoginThrottle } from "../../../src/intel/admin/throttle.ts";

function throttle() {
  let now = 1_000_000;
  const t = new LoginThrottle({ failuresPerUser: 3, failuresPerIp: 5, windowMs: 60_000 }, () => now);
  return { t, advance: (ms: number) => (now += ms) };
}

describe("login throttle", () => {
  it("locks a username after its failures, whatever the address, until the window passes", () => {
    const { t, advance } = throttle();
    for (const ip of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) assert.equal(t.reserve(ip, "alice"), undefined);
    advance(10_000);
    assert.deepEqual(t.reserve("10.0.0.9", "ALICE"), { reason: "user", retryInMs: 50_000 });
    assert.equal(t.reserve("10.0.0.9", "bob"), undefined);
    advance(50_000);
    assert.equal(t.reserve("10.0.0.9", "alice"), undefined);
  });

  it("says how long a username stays locked, and an admin can lift the lock (not the address's count)", () => {
    const { t, advance } = throttle();
    for (let i = 0; i < 2; i++) t.reserve("10.0.0.1", "alice");
    assert.equal(t.lockedFor("alice"), undefined, "2 failures of 3: not locked yet");
    t.reserve("10.0.0.1", "alice");
    advance(15_000);
    assert.equal(t.lockedFor("Alice"), 45_000);
    assert.equal(t.unlock("ALICE"), true);
    assert.equal(t.lockedFor("alice"), undefined);
    assert.equal(t.reserve("10.0.0.2", "alice"), undefined);
    assert.equal(t.unlock("nobody"), false);
    // The address keeps its 3 counted attempts: 2 more reach its limit of 5.
    assert.equal(t.reserve("10.0.0.1", "carol"), undefined);
    assert.equal(t.reserve("10.0.0.1", "dave"), undefined);
    assert.equal(t.reserve("10.0.0.1", "erin")?.reason, "ip");
  });

  it("locks an address trying many usernames", () => {
    const { t } = throttle();
    for (let i = 0; i < 5; i++) assert.equal(t.reserve("10.0.0.1", `user${i}`), undefined);
    assert.equal(t.reserve("10.0.0.1", "someone-new")?.reason, "ip");
    assert.equal(t.reserve("10.0.0.2", "someone-new"), undefined);
  });

  it("counts an attempt when it starts: attempts still being checked cannot pass the limit", () => {
    const { t } = throttle();
    // Twelve logins arriving together, none finished yet: only the limit's worth go on to the hash.
    const answers = Array.from({ length: 12 }, (_, i) => t.reserve(`10.0.1.${i}`, "alice"));
    assert.equal(answers.filter((a) => a === undefined).length, 3);
    assert.ok(answers.slice(3).every((a) => a?.reason === "user"));
  });

  it("forgets a user's failures after a successful login, not the address's", () => {
    const { t } = throttle();
    for (let i = 0; i < 2; i++) t.reserve("10.0.0.1", "alice");
    assert.equal(t.reserve("10.0.0.1", "alice"), undefined);
    t.succeeded("10.0.0.1", "alice"); // the good login gives its own attempt back, not the failures
    for (let i = 0; i < 2; i++) assert.equal(t.reserve("10.0.0.1", "alice"), undefined);
    assert.equal(t.reserve("10.0.0.1", "alice"), undefined);
    assert.equal(t.reserve("10.0.0.1", "bob")?.reason, "ip");
  });
});
