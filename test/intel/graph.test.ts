/** Mermaid escaping with hostile names, event merging, and attribute merging, on a real SQLite store. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { escapeLabel, toMermaid } from "../../src/intel/domain/mermaid.ts";
import { openStore, type Store } from "../../src/intel/store/db.ts";
import { mergeAttributes, readNeighbourhood, saveFragment } from "../../src/intel/store/graph.ts";
import { freshDatabase } from "../helpers/intel-server.ts";

describe("Mermaid graph", () => {
  const hostile = [
    'say "hi"',
    "a]b[c",
    "x --> y",
    "line1\nline2",
    "<img src=x onerror=alert(1)>",
    "ünïcødé 🚀",
    "end",
    "a|b;c#d{e}(f)`g`",
  ];

  it("escapes every character that could break a label or inject syntax", () => {
    for (const name of hostile) {
      const label = escapeLabel(name);
      const withoutEntityCodes = label.replace(/#\d+;/g, "");
      assert.doesNotMatch(withoutEntityCodes, /["[\]<>{}()|;#`\n]/, `${name} → ${label}`);
      assert.doesNotMatch(label, /-->/);
    }
    assert.equal(escapeLabel('say "hi"'), "say #34;hi#34;");
    assert.equal(escapeLabel("🚀"), "#128640;");
  });

  it("draws one node per entity and one edge per relation, in the given order", () => {
    const nodes = hostile.map((label, i) => ({ id: `0f0e-id${i}`, label }));
    const graph = toMermaid(nodes, [
      { from: "0f0e-id0", to: "0f0e-id1", label: "resolves" },
      { from: "0f0e-id2", to: "0f0e-id3", label: 'evil"]-->x' },
      { from: "0f0e-id2", to: "missing", label: "dropped" },
    ]);
    const lines = graph.split("\n");
    assert.equal(lines[0], "flowchart LR");
    assert.equal(lines.length, 1 + hostile.length + 2);
    for (const line of lines.slice(1, 1 + hostile.length))
      assert.match(line, /^ {2}0f0e-id\d+\("[^"\n]*"\)$/);
    assert.equal(lines.at(-2), '  0f0e-id0 -->|"resolves"| 0f0e-id1');
    assert.match(lines.at(-1) ?? "", /^ {2}0f0e-id2 -->\|"evil#34;#93;--#62;x"\| 0f0e-id3$/);
    assert.equal(toMermaid(nodes, []), toMermaid(nodes, []), "stable");
    const odd = toMermaid(
      [{ id: "a --> b", label: "x" }, ...nodes.slice(0, 1)],
      [{ from: "a --> b", to: "0f0e-id0", label: "e" }],
    );
    assert.equal(
      odd,
      `flowchart LR\n  0f0e-id0("say #34;hi#34;")`,
      "an id that is not a plain token is left out",
    );
  });
});

describe("knowledge graph storage", () => {
  let store: Store;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const root = { superType: "OBSERVABLE", type: "DOMAIN", name: "example.org" };
  before(async () => {
    db = await freshDatabase("sqlite");
    store = await openStore(db.url);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  it("merges similar events with overlapping days and keeps others apart", async () => {
    const ev = (first: string, last: string, count = 1, name = "Seen in passive DNS") => ({
      type: "PASSIVE_DNS",
      name,
      firstSeen: first,
      lastSeen: last,
      count,
      involved: root,
    });
    const rootId = await saveFragment(
      store.db,
      root,
      { entities: [], relations: [], events: [ev("2026-01-01T10:00:00Z", "2026-01-03T00:00:00Z", 2)] },
      "otx",
    );
    await saveFragment(
      store.db,
      root,
      { entities: [], relations: [], events: [ev("2026-01-03T12:00:00Z", "2026-01-05T08:30:00.5Z", 3)] },
      "otx",
    );
    await saveFragment(
      store.db,
      root,
      { entities: [], relations: [], events: [ev("2026-02-01T00:00:00Z", "2026-02-01T00:00:00Z")] },
      "otx",
    );
    await saveFragment(
      store.db,
      root,
      { entities: [], relations: [], events: [ev("2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z")] },
      "virustotal",
    );
    const hood = await readNeighbourhood(store.db, rootId, 1);
    const events = (hood?.events ?? []).map((e) => [e.vendor, e.first_seen, e.last_seen, e.count]).sort();
    assert.deepEqual(events, [
      ["otx", "2026-01-01T10:00:00Z", "2026-01-05T08:30:00Z", 5],
      ["otx", "2026-02-01T00:00:00Z", "2026-02-01T00:00:00Z", 1],
      ["virustotal", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z", 1],
    ]);
  });

  it("keeps one entity per natural key and merges attributes from several vendors", async () => {
    const ip = { superType: "OBSERVABLE", type: "IPV4", name: "192.0.2.1" };
    for (const [vendor, attrs] of [
      ["virustotal", { country: "NL", vt_score: "1/90" }],
      ["shodan", { country: "NL", ports: "22,443" }],
      ["otx", { pulse_count: "3" }],
    ] as const) {
      await saveFragment(
        store.db,
        root,
        {
          entities: [{ ...ip, attributes: attrs }],
          relations: [{ name: "resolves", from: root, to: ip }],
          events: [],
        },
        vendor,
      );
    }
    const rows = await store.db.selectFrom("entities").selectAll().where("name", "=", "192.0.2.1").execute();
    assert.equal(rows.length, 1);
    assert.deepEqual(JSON.parse(rows[0]!.attributes), {
      country: "NL",
      ports: "22,443",
      pulse_count: "3",
      source_vendor: "otx,shodan,virustotal",
      vt_score: "1/90",
    });
    const relations = await store.db
      .selectFrom("relations")
      .selectAll()
      .where("name", "=", "resolves")
      .execute();
    assert.equal(relations.length, 1);
    assert.deepEqual(mergeAttributes({ source_vendor: "a" }, { source_vendor: "b,a", x: "1" }), {
      source_vendor: "a,b",
      x: "1",
    });
  });
});
