/**
 * The turns at the rule scan workers (share.ts): the caps per client and in all, the freed place
 * going to the client that used the least worker time lately, a client's own order, and a waiting
 * scan that gives up leaving no place taken.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ClientShare } from "../../src/files/sandbox/share.ts";

const live = () => new AbortController().signal;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("turns at the rule scan workers", () => {
  it("holds one client to its share, and all clients to the total", async () => {
    const share = new ClientShare(1, 2, 60_000);
    const a1 = await share.enter("a", live());
    let a2Entered = false;
    const a2 = share.enter("a", live()).then((leave) => {
      a2Entered = true;
      return leave;
    });
    const b1 = await share.enter("b", live()); // a holds one of two: b is not held
    let c1Entered = false;
    const c1 = share.enter("c", live()).then((leave) => {
      c1Entered = true;
      return leave;
    });
    await pause(10);
    assert.equal(a2Entered, false, "a's second scan waits for its first");
    assert.equal(c1Entered, false, "c waits: two scans run");
    b1();
    (await c1)();
    a1();
    (await a2)();
    assert.equal(share.held, 2);
  });

  it("gives a freed place to the client that used the least worker time, not the first in line", async () => {
    const share = new ClientShare(2, 2, 60_000);
    const heavy = await share.enter("heavy", live());
    await pause(60); // heavy holds its place 60 ms: its usage grows
    heavy();
    const first = await share.enter("heavy", live());
    const second = await share.enter("heavy", live());
    const order: string[] = [];
    const turn = (client: string) =>
      share.enter(client, live()).then((leave) => {
        order.push(client);
        return leave;
      });
    const waitingHeavy = turn("heavy");
    const waitingLight = turn("light");
    first();
    (await waitingLight)();
    second();
    (await waitingHeavy)();
    assert.deepEqual(order, ["light", "heavy"]);
  });

  it("keeps one place from heavy clients together (a whole budget of worker time lately)", async () => {
    const share = new ClientShare(1, 2, 40);
    for (const client of ["h1", "h2"]) {
      const leave = await share.enter(client, live());
      await pause(60); // 60 ms of worker time: past the 40 ms that makes a client heavy
      leave();
    }
    const h1 = await share.enter("h1", live());
    let h2Entered = false;
    const h2 = share.enter("h2", live()).then((leave) => {
      h2Entered = true;
      return leave;
    });
    const light = await share.enter("light", live()); // the place heavy clients may not take
    await pause(10);
    assert.equal(h2Entered, false, "a second heavy client waits though a place was free");
    light();
    h1();
    (await h2)();
  });

  it("lets a waiting scan give up without keeping a place", async () => {
    const share = new ClientShare(1, 1, 60_000);
    const first = await share.enter("a", live());
    const giveUp = new AbortController();
    const waiting = share.enter("b", giveUp.signal);
    giveUp.abort();
    await assert.rejects(waiting);
    first();
    (await share.enter("c", live()))(); // the place is free again
  });
});
