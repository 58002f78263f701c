/**
 * The marking matrix, on SQLite and PostgreSQL: 5 TLP × 5 PAP levels × every path that can reach a
 * vendor, against a real server whose two fake vendors (one per disclosure class: VirusTotal, a third
 * party; the user's own MISP) record what they receive. The documented rule (docs/api.md, "TLP and
 * PAP"): a third party receives a subject only while the stricter of the ask's and the stored TLP
 * and PAP are both below AMBER; the own MISP always. Every vendor call is one the rule allows, and
 * there is no other. One server per database; each path runs its 25 cells at once.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, it } from "node:test";
import { MARKINGS, type Marking, rank } from "../../src/intel/model/markings.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import type { SimpleFake } from "../helpers/fake-vendor.ts";
import type { FakeVendor } from "../helpers/fake-virustotal.ts";
import type { TestIntelServer } from "../helpers/intel-server.ts";
import { json } from "../helpers/json.ts";
import { type MarkingVendors, startMarkingVendors } from "../helpers/marking-vendors.ts";
import { ageStoredSource } from "../helpers/stored-sources.ts";

const DAY_MS = 24 * 3600 * 1000;
const CELLS = MARKINGS.flatMap((tlp) => MARKINGS.map((pap) => ({ tlp, pap })));
type Cell = (typeof CELLS)[number];

/** The documented rule for a third party with no allowance: both levels below AMBER. */
const thirdPartyMayReceive = (m: { tlp: Marking; pap: Marking }) => rank(m.tlp) < 2 && rank(m.pap) < 2;

const hashOf = (path: string, cell: Cell) =>
  createHash("sha256").update(`${path}/${cell.tlp}/${cell.pap}`).digest("hex");
const subject = (value: string, extra: Record<string, unknown> = {}) => ({
  super_type: "OBSERVABLE",
  type: "SHA256",
  value,
  ...extra,
});

describeOnEachDatabase("marking matrix", (db) => {
  let vt: FakeVendor;
  let misp: SimpleFake;
  let server: TestIntelServer;
  let fakes: MarkingVendors;
  /** Hash → how many times the rule lets VirusTotal hear of it (every path adds its own). */
  const allowedVt = new Map<string, number>();
  const expectVt = (hash: string, times: number) => allowedVt.set(hash, (allowedVt.get(hash) ?? 0) + times);

  const post = async (path: string, body: unknown) => {
    const res = await server.api(path, { method: "POST", body: JSON.stringify(body) });
    const answer = await json(res);
    assert.ok([200, 201, 202].includes(res.status), `${path} ${res.status} ${JSON.stringify(answer)}`);
    return { status: res.status, body: answer };
  };
  const ask = (body: unknown) => post("/api/request/", body);
  /** Each cell's step at once, then until no request is queued or running. */
  const everyCell = async (step: (cell: Cell) => Promise<unknown>) => {
    await Promise.all(CELLS.map(step));
    await settle();
  };
  async function settle(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const active = await server.services.store.db
        .selectFrom("requests")
        .select("id")
        .where("status", "in", ["CREATED", "ENQUEUED", "PROCESSING"])
        .execute();
      if (active.length === 0) return;
      assert.ok(Date.now() < deadline, `${active.length} requests still running`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const vtCallsAbout = (hash: string) => vt.calls.filter((c) => c.includes(hash)).length;
  const mispCallsAbout = (hash: string) => misp.calls.filter((c) => c.body.includes(hash)).length;
  /** Per cell: VirusTotal heard of the hash exactly as often as the rule allows; MISP did hear of it. */
  function checkPath(path: string): void {
    for (const cell of CELLS) {
      const hash = hashOf(path, cell);
      const where = `${path} TLP:${cell.tlp} PAP:${cell.pap}`;
      assert.equal(vtCallsAbout(hash), allowedVt.get(hash) ?? 0, `VirusTotal calls, ${where}`);
      assert.ok(mispCallsAbout(hash) > 0, `the own MISP is asked, ${where}`);
    }
  }

  before(async () => {
    fakes = await startMarkingVendors(db, { env: { INTEL_WORKER_CONCURRENCY: "16" } });
    ({ server, vt, misp } = fakes);
  });
  after(() => fakes?.close());

  it("single asks", async () => {
    await everyCell((cell) => ask(subject(hashOf("single", cell), cell)));
    for (const cell of CELLS) if (thirdPartyMayReceive(cell)) expectVt(hashOf("single", cell), 1);
    checkPath("single");
  });

  it("forced asks and force lists, on subjects looked up at CLEAR before", async () => {
    for (const path of ["forced", "force-list"]) {
      await everyCell((cell) => ask(subject(hashOf(path, cell))));
      for (const cell of CELLS) expectVt(hashOf(path, cell), 1);
      const force = path === "forced" ? true : ["virustotal", "misp"];
      await everyCell((cell) => ask(subject(hashOf(path, cell), { ...cell, force })));
      for (const cell of CELLS) if (thirdPartyMayReceive(cell)) expectVt(hashOf(path, cell), 1);
      checkPath(path);
    }
  });

  it("bulk asks marked at the top level", async () => {
    await everyCell((cell) =>
      post("/api/requests/", { subjects: [subject(hashOf("bulk-top", cell))], ...cell }),
    );
    for (const cell of CELLS) if (thirdPartyMayReceive(cell)) expectVt(hashOf("bulk-top", cell), 1);
    checkPath("bulk-top");
  });

  it("bulk asks marked per subject: a subject's own marks win over the batch's", async () => {
    const subjects = CELLS.map((cell) => subject(hashOf("bulk-each", cell), cell));
    await post("/api/requests/", { subjects, tlp: "RED", pap: "RED" });
    await settle();
    for (const cell of CELLS) if (thirdPartyMayReceive(cell)) expectVt(hashOf("bulk-each", cell), 1);
    checkPath("bulk-each");
  });

  it("background refreshes behind a stale answer, after the subject was marked", async () => {
    await everyCell((cell) => ask(subject(hashOf("refresh", cell))));
    for (const cell of CELLS) expectVt(hashOf("refresh", cell), 1);
    // Marked: answered from storage (200), nothing stale yet, so nobody is asked.
    await everyCell((cell) => ask(subject(hashOf("refresh", cell), cell)));
    for (const cell of CELLS)
      await ageStoredSource(
        server.services.store,
        `OBSERVABLE/SHA256/${hashOf("refresh", cell)}`,
        "virustotal",
        2 * DAY_MS,
      );
    // An ask naming no marking (Colander's): the stale VirusTotal part is refreshed only where allowed.
    await everyCell(async (cell) => assert.equal((await ask(subject(hashOf("refresh", cell)))).status, 200));
    for (const cell of CELLS) if (thirdPartyMayReceive(cell)) expectVt(hashOf("refresh", cell), 1);
    checkPath("refresh");
  });

  it("later unmarked asks (forced, as Colander's) after a marked one, also in upper case", async () => {
    for (const path of ["later", "upper-case"]) {
      await everyCell((cell) => ask(subject(hashOf(path, cell), cell)));
      const later = (value: string) => (path === "upper-case" ? value.toUpperCase() : value);
      await everyCell((cell) => ask(subject(later(hashOf(path, cell)), { force: true })));
      for (const cell of CELLS) if (thirdPartyMayReceive(cell)) expectVt(hashOf(path, cell), 2);
      checkPath(path);
    }
  });

  it("made no VirusTotal call the rule does not allow", () => {
    const expected = [...allowedVt.values()].reduce((a, b) => a + b, 0);
    assert.equal(vt.calls.length, expected, "VirusTotal heard of nothing else");
    for (const call of vt.calls)
      assert.ok(
        [...allowedVt.keys()].some((h) => call.includes(h)),
        `an unexpected call: ${call}`,
      );
  });
});
