/**
 * One threat, one entity: "AgentTesla", "Agent Tesla", "agent_tesla" and "Agenttesla" fold to one
 * key; the first spelling saved names the entity and every vendor's spelling joins its `aliases`.
 * End to end on SQLite and PostgreSQL with two fake abuse.ch vendors spelling it differently.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { EntityRef, Fragment } from "../../src/intel/connectors/types.ts";
import { foldThreatName, unifyThreatNames } from "../../src/intel/domain/threat-names.ts";
import { addCredentials } from "../../src/intel/store/credentials.ts";
import { fixture } from "../helpers/connectors.ts";
import { describeOnEachDatabase } from "../helpers/databases.ts";
import { type SimpleFake, startFakeVendor } from "../helpers/fake-vendor.ts";
import { pollUntilDone, type TestIntelServer } from "../helpers/intel-server.ts";

describe("threat names folded across vendors", () => {
  it("folds case, spaces, underscores, hyphens, dots and accents, and nothing else", () => {
    for (const n of ["AgentTesla", "Agent Tesla", "agent_tesla", "Agenttesla", "Agent-Tesla", "Agént.Tesla"])
      assert.equal(foldThreatName(n), "agenttesla", n);
    assert.notEqual(foldThreatName("Agent Tesla 2"), foldThreatName("Agent Tesla"));
    assert.equal(foldThreatName("„…“"), "");
    assert.equal(foldThreatName("Лазарус"), "лазарус");
  });

  it("renames every reference to a threat, adds the vendor's spelling to aliases, and leaves the subject alone", async () => {
    const root: EntityRef = { superType: "THREAT", type: "MALWARE", name: "agent_tesla" };
    const known = new Map([["agenttesla", { superType: "THREAT", type: "MALWARE", name: "AgentTesla" }]]);
    const asked: string[] = [];
    const resolve = async (folded: string, proposed: EntityRef) => {
      asked.push(folded);
      return known.get(folded) ?? proposed;
    };
    const file: EntityRef = {
      superType: "OBSERVABLE",
      type: "MD5",
      name: "44d88612fea8a8f36de82e1278abb02f",
    };
    const vendorThreat: EntityRef = { superType: "THREAT", type: "TROJAN", name: "Agent Tesla" };
    const fragment: Fragment = {
      entities: [{ ...vendorThreat, attributes: { aliases: "ATesla,RAT X" } }, file, root],
      relations: [
        { name: "associated threat", from: file, to: vendorThreat },
        { name: "same as", from: root, to: vendorThreat },
      ],
      events: [
        {
          type: "HIT",
          name: "seen",
          firstSeen: "2026-01-01",
          lastSeen: "2026-01-02",
          involved: vendorThreat,
        },
      ],
    };
    const out = await unifyThreatNames(fragment, root, resolve);
    assert.deepEqual(asked, ["agenttesla"], "one question per spelling; the subject is not asked about");
    assert.deepEqual(out.entities[0], {
      superType: "THREAT",
      type: "MALWARE",
      name: "AgentTesla",
      attributes: { aliases: "ATesla,RAT X,Agent Tesla" },
    });
    assert.deepEqual(out.entities.slice(1), [file, root]);
    assert.equal(out.relations[0]?.to.name, "AgentTesla");
    assert.deepEqual(out.relations[1]?.from, root);
    assert.equal(out.events[0]?.involved.name, "AgentTesla");
    const plain: Fragment = { entities: [file], relations: [], events: [] };
    assert.equal(await unifyThreatNames(plain, file, resolve), plain, "nothing to do, nothing copied");
  });
});

const MD5 = "44d88612fea8a8f36de82e1278abb02f";
const SHA256 = "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f";

/** ThreatFox's answer for a hash, naming the family its own way. */
function threatFoxSaying(hash: string, family: string): unknown {
  const answer = structuredClone(fixture("threatfox", "found")) as { data: Array<Record<string, unknown>> };
  Object.assign(answer.data[0]!, {
    ioc: hash,
    ioc_type: hash.length === 32 ? "md5_hash" : "sha256_hash",
    threat_type: "payload",
    malware_printable: family,
    malware_alias: "agent_tesla",
  });
  return answer;
}

interface Doc {
  entities: Array<{ super_type: { short_name: string }; name: string; attributes: Record<string, string> }>;
}

describeOnEachDatabase("one threat entity from two vendors' spellings", (db) => {
  let abusech: SimpleFake;
  let server: TestIntelServer;
  before(async () => {
    abusech = await startFakeVendor({
      "/api/v1/": (body) => {
        // MalwareBazaar (a form: query=get_info) says "AgentTesla" for the MD5 only.
        if (body.startsWith("query=get_info"))
          return {
            body: body.includes(MD5)
              ? fixture("malwarebazaar", "found")
              : fixture("malwarebazaar", "not_found"),
          };
        // ThreatFox (JSON) says "Agent Tesla" for the MD5, "Agenttesla" for the SHA-256.
        return {
          body: threatFoxSaying(
            body.includes(MD5) ? MD5 : SHA256,
            body.includes(MD5) ? "Agent Tesla" : "Agenttesla",
          ),
        };
      },
    });
    server = await db.startIntelServer({
      env: {
        INTEL_CONNECTORS: "malwarebazaar,threatfox",
        INTEL_VENDOR_URL_MALWAREBAZAAR: abusech.url,
        INTEL_VENDOR_URL_THREATFOX: abusech.url,
        INTEL_VENDOR_RETRIES: "0",
      },
    });
    for (const vendor of ["malwarebazaar", "threatfox"])
      await addCredentials(server.services.store.db, vendor, { api_key: "abuse-ch-key" });
  });
  after(async () => {
    await abusech?.close();
  });

  const threats = async () =>
    server.services.store.db.selectFrom("entities").selectAll().where("super_type", "=", "THREAT").execute();

  it("saves AgentTesla, Agent Tesla and Agenttesla as one entity, keeping each spelling", async () => {
    const res = await pollUntilDone(server, { super_type: "OBSERVABLE", type: "MD5", value: MD5 });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as Doc;
    const inDoc = doc.entities.filter((e) => e.super_type.short_name === "THREAT");
    assert.equal(inDoc.length, 1, JSON.stringify(inDoc.map((e) => e.name)));
    let [threat] = await threats();
    assert.equal((await threats()).length, 1);
    assert.ok(["AgentTesla", "Agent Tesla"].includes(threat!.name), threat!.name);
    assert.deepEqual(JSON.parse(threat!.attributes).aliases.split(","), [
      "Agent Tesla",
      "AgentTesla",
      "agent_tesla",
    ]);
    assert.equal(JSON.parse(threat!.attributes).source_vendor, "malwarebazaar,threatfox");

    const again = await pollUntilDone(server, { super_type: "OBSERVABLE", type: "SHA256", value: SHA256 });
    assert.equal(again.status, 200);
    const all = await threats();
    assert.equal(all.length, 1, JSON.stringify(all.map((t) => t.name)));
    [threat] = all;
    assert.deepEqual(JSON.parse(threat!.attributes).aliases.split(","), [
      "Agent Tesla",
      "AgentTesla",
      "Agenttesla",
      "agent_tesla",
    ]);
    const links = await server.services.store.db
      .selectFrom("relations")
      .select("obj_to")
      .where("obj_to", "=", threat!.id)
      .execute();
    assert.ok(links.length >= 2, "both files point at the one threat");
  });
});
