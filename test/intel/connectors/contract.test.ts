/**
 * The contract every connector in the registry keeps, checked on every recorded answer it ships:
 * each fixture goes through `normalize` for every type the connector supports (the taxonomy's
 * example value as subject) and must give a well-formed fragment, or the one refusal allowed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONNECTORS } from "../../../src/intel/connectors/registry.ts";
import {
  type Connector,
  type EntityRef,
  type Fragment,
  rootRef,
  type Subject,
  VendorError,
} from "../../../src/intel/connectors/types.ts";
import { findType } from "../../../src/intel/model/taxonomy.ts";
import { fixture, fixtureNames } from "../../helpers/connectors.ts";

const key = (r: EntityRef) => `${r.superType}/${r.type}/${r.name}`;

/** Answers no vendor sends on purpose but a broken proxy or a format change can. */
const ODD_ANSWERS: unknown[] = [null, {}, [], "text", 42, { data: null }, { data: [null, 1, "x"] }];

function subjectsOf(connector: Connector): Subject[] {
  return connector.supportedTypes.map((t) => ({
    ...t,
    value: findType(t.superType, t.type)?.example ?? "Example Name",
  }));
}

/** A known type, by its exact short names (the graph stores what normalize gives, without case folding). */
function assertKnownType(superType: string, type: string, where: string): void {
  const info = findType(superType, type);
  assert.ok(
    info && info.superType === superType && info.shortName === type,
    `${where}: ${superType}/${type}`,
  );
}

function assertStrings(attributes: Record<string, string> | undefined, where: string): void {
  for (const [name, value] of Object.entries(attributes ?? {}))
    assert.equal(typeof value, "string", `${where}: attribute ${name} is ${typeof value}`);
}

/** The fragment's shape: known types, string attributes, relations and events only on its own entities. */
function assertWellFormed(fragment: Fragment, subject: Subject, where: string): void {
  const known = new Set([key(rootRef(subject))]);
  for (const e of fragment.entities) {
    assertKnownType(e.superType, e.type, `${where} entity`);
    assert.ok(typeof e.name === "string" && e.name.length > 0, `${where}: an entity without a name`);
    assertStrings(e.attributes, `${where} entity ${key(e)}`);
    known.add(key(e));
  }
  for (const r of fragment.relations) {
    assert.ok(typeof r.name === "string" && r.name.length > 0, `${where}: a relation without a verb`);
    for (const end of [r.from, r.to]) assert.ok(known.has(key(end)), `${where}: relation end ${key(end)}`);
    assertStrings(r.attributes, `${where} relation ${r.name}`);
  }
  for (const ev of fragment.events) {
    assertKnownType("EVENT", ev.type, `${where} event`);
    assert.ok(known.has(key(ev.involved)), `${where}: event on unknown ${key(ev.involved)}`);
    for (const t of [ev.firstSeen, ev.lastSeen])
      assert.ok(!Number.isNaN(Date.parse(t)), `${where}: event time ${t}`);
    assertStrings(ev.attributes, `${where} event ${ev.name}`);
  }
}

/**
 * One answer through normalize, twice: the same fragment both times and the answer left as it was.
 * A refusal is allowed only as VendorError "bad_response" (types.ts); null when refused.
 */
function normalizeChecked(
  connector: Connector,
  raw: unknown,
  subject: Subject,
  where: string,
): Fragment | null {
  const before = structuredClone(raw);
  let first: Fragment;
  try {
    first = connector.normalize(raw, subject);
  } catch (err) {
    assert.ok(err instanceof VendorError && err.code === "bad_response", `${where}: threw ${String(err)}`);
    assert.throws(() => connector.normalize(structuredClone(before), subject), VendorError);
    return null;
  }
  assert.deepEqual(raw, before, `${where}: normalize changed its input`);
  assert.deepEqual(
    connector.normalize(structuredClone(before), subject),
    first,
    `${where}: not deterministic`,
  );
  assertWellFormed(first, subject, where);
  return first;
}

describe("connector contract", () => {
  for (const connector of CONNECTORS) {
    it(`${connector.id}: every fixture, for every supported type, gives a well-formed fragment`, () => {
      const names = fixtureNames(connector.id);
      assert.ok(
        names.length > 0,
        `${connector.id} ships no fixture in src/intel/connectors/${connector.id}/fixtures`,
      );
      let entities = 0;
      for (const name of names)
        for (const subject of subjectsOf(connector)) {
          const where = `${connector.id} ${name}.json as ${subject.type}`;
          entities +=
            normalizeChecked(connector, fixture(connector.id, name), subject, where)?.entities.length ?? 0;
        }
      assert.ok(entities > 0, `${connector.id}: no fixture gave a single entity`);
    });

    it(`${connector.id}: odd answers are skipped or refused as bad_response, never a crash`, () => {
      for (const raw of ODD_ANSWERS)
        for (const subject of subjectsOf(connector))
          normalizeChecked(
            connector,
            raw,
            subject,
            `${connector.id} ${JSON.stringify(raw)} as ${subject.type}`,
          );
    });
  }
});
