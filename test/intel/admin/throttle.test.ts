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
    for (const ip of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) {
      assert.equal(t.blocked(ip, "alice"), undefined);
      t.failed(ip, "alice");
    }
    advance(10_000);
    assert.deepEqual(t.blocked("10.0.0.9", "ALICE"), { reason: "user", retryInMs: 50_000 });
    assert.equal(t.blocked("10.0.0.9", "bob"), undefined);
    advance(50_000);
    assert.equal(t.blocked("10.0.0.9", "alice"), undefined);
  });

  it("locks an address trying many usernames", () => {
    const { t } = throttle();
    for (let i = 0; i < 5; i++) t.failed("10.0.0.1", `user${i}`);
    assert.equal(t.blocked("10.0.0.1", "someone-new")?.reason, "ip");
    assert.equal(t.blocked("10.0.0.2", "someone-new"), undefined);
  });

  it("forgets a user's failures after a successful login, not the address's", () => {
    const { t } = throttle();
    for (let i = 0; i < 2; i++) t.failed("10.0.0.1", "alice");
    t.succeeded("alice");
    for (let i = 0; i < 2; i++) t.failed("10.0.0.1", "alice");
    assert.equal(t.blocked("10.0.0.1", "alice"), undefined);
    t.failed("10.0.0.1", "alice");
    assert.equal(t.blocked("10.0.0.1", "bob")?.reason, "ip");
  });
});
