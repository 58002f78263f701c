/** The Colander export as a pure function: a rich graph, checked against the converter's models and by meaning. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toColanderFeed } from "../../../src/intel/domain/export/colander.ts";
import { colanderProblems } from "../../helpers/colander-validator.ts";
import { RICH, richDocument } from "../../helpers/export-graph.ts";
import type { Json } from "../../helpers/json.ts";

const doc = richDocument();
const feed: Json = toColanderFeed(doc, { vendorNames: {} });
const entities: Json[] = Object.values(feed.entities);
const named = (name: string): Json => entities.find((e) => e.name === name);
const relations: Json[] = Object.values(feed.relations);

describe("Colander export", () => {
  it("is a feed Colander's data converter models accept, every reference resolved", () => {
    assert.deepEqual(colanderProblems(feed), []);
  });

  it("is checked by a validator that does refuse broken feeds", () => {
    const broken = structuredClone(feed);
    const [first] = Object.values(broken.entities) as Json[];
    first.tlp = "CLEAR";
    first.colour = "red";
    const [relation] = Object.values(broken.relations) as Json[];
    relation.obj_to = "00000000-0000-4000-8000-00000000ffff";
    const problems = colanderProblems(broken).join("\n");
    assert.match(problems, /tlp|allowed values/);
    assert.match(problems, /additional properties/);
    assert.match(problems, /points to 00000000-0000-4000-8000-00000000ffff, not in the feed/);
  });

  it("keeps Loupe's ids, so a second import updates instead of duplicating", () => {
    assert.equal(named(RICH.sha256).id, doc.root_entity.id);
    assert.deepEqual(toColanderFeed(doc, { vendorNames: {} }), feed);
  });

  it("carries each entity with its kind, type, levels and attributes", () => {
    const root = named(RICH.sha256);
    assert.equal(root.colander_internal_type, "observable");
    assert.deepEqual(root.type, { short_name: "SHA256", name: "SHA256" });
    assert.equal(root.tlp, "AMBER");
    assert.equal(root.pap, "GREEN");
    assert.equal(root.attributes.vt_score, "61/76");
    assert.equal(named(RICH.malware).colander_internal_type, "threat");
    assert.equal(named(RICH.actor).colander_internal_type, "actor");
    assert.equal(named(RICH.ip).tlp, "WHITE");
  });

  it("fills associated_threat from the relation, and keeps the other relations", () => {
    assert.equal(named(RICH.sha256).associated_threat, named(RICH.malware).id);
    assert.ok(!relations.some((r) => r.name === "associated threat"));
    const resolves = relations.find((r) => r.name === "resolves");
    assert.equal(resolves.obj_from, named(RICH.domain).id);
    assert.equal(resolves.obj_to, named(RICH.ip).id);
  });

  it("leaves out what Colander has no entity for (ATT&CK techniques) and their relations", () => {
    assert.equal(named(RICH.technique), undefined);
    assert.ok(!relations.some((r) => r.name === "uses"));
  });

  it("makes events Event entities involving their observable, or tied to a threat", () => {
    const detection = entities.find((e) => e.type.short_name === "AV_DETECTION");
    assert.deepEqual(detection.involved_observables, [named(RICH.sha256).id]);
    assert.equal(detection.count, 61);
    const dns = entities.find((e) => e.type.short_name === "PASSIVE_DNS");
    assert.equal(dns.count, 1, "Colander counts from 1");
    const campaign = entities.find((e) => e.name === "Emotet campaign");
    assert.deepEqual(campaign.involved_observables, []);
    const involves = relations.find((r) => r.obj_from === campaign.id);
    assert.deepEqual([involves.name, involves.obj_to], ["involves", named(RICH.malware).id]);
  });
});
