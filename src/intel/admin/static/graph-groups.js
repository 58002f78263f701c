// Large graphs stay readable: beyond GRAPH_MAX_NODES, entities of one type are drawn as one node
// ("12 domains") — leaves first (entities with one relation), then, if still too many, any type
// but the root's — and a click on such a node opens it. Works on the document's own Mermaid text,
// whose labels are already escaped, so nothing from a vendor is re-escaped by hand here.
window.loupeGroupGraph = (() => {
  // 40 nodes still fit a 1280 px box with readable labels; beyond it Mermaid's layout turns to lines.
  const GRAPH_MAX_NODES = 40;
  const NODE = /^\s*([^\s[\]()"|]+)\("(.*)"\)\s*$/;
  const EDGE = /^\s*(\S+) -->\|"(.*)"\| (\S+)\s*$/;

  const plural = (type, n) => {
    const word = type.toLowerCase().replace(/_/g, " ");
    return `${n} ${word}${word.endsWith("s") ? "es" : "s"}`;
  };

  return (doc, opened) => {
    const lines = (doc.graph ?? "").split("\n");
    const nodes = lines.map((l) => NODE.exec(l)).filter(Boolean);
    const edges = lines.map((l) => EDGE.exec(l)).filter(Boolean);
    const groups = new Map();
    if (nodes.length <= GRAPH_MAX_NODES) return { text: doc.graph, groups, total: nodes.length };
    const rootId = doc.root_entity?.id;
    const typeOf = new Map(
      [doc.root_entity, ...(doc.entities ?? [])]
        .filter(Boolean)
        .map((e) => [e.id, e.type?.short_name ?? e.type]),
    );
    const degree = new Map();
    for (const [, from, , to] of edges)
      for (const id of [from, to]) degree.set(id, (degree.get(id) ?? 0) + 1);
    const groupOf = new Map(); // entity id → group id
    let shown = nodes.length;
    const groupBy = (eligible) => {
      const byType = new Map();
      for (const [, id] of nodes) {
        const type = typeOf.get(id);
        if (id === rootId || groupOf.has(id) || !type || opened.has(type) || !eligible(id)) continue;
        byType.set(type, [...(byType.get(type) ?? []), id]);
      }
      for (const [type, ids] of [...byType].sort((a, b) => b[1].length - a[1].length)) {
        if (shown <= GRAPH_MAX_NODES || ids.length < 2) break;
        const key = [...groups.values()].find((g) => g.type === type)?.id ?? `group-${groups.size}`;
        const group = groups.get(key) ?? { id: key, type, count: 0 };
        groups.set(key, group);
        for (const id of ids) groupOf.set(id, key);
        group.count += ids.length;
        shown -= ids.length - (group.count === ids.length ? 1 : 0);
      }
    };
    groupBy((id) => degree.get(id) === 1);
    groupBy(() => true);
    const out = ["flowchart LR"];
    for (const [line, id] of nodes) if (!groupOf.has(id)) out.push(line);
    for (const g of groups.values()) out.push(`  ${g.id}(["${plural(g.type, g.count)}"])`);
    const seen = new Set();
    for (const [, from, label, to] of edges) {
      const a = groupOf.get(from) ?? from;
      const b = groupOf.get(to) ?? to;
      const line = `  ${a} -->|"${label}"| ${b}`;
      if (a === b || seen.has(line)) continue;
      seen.add(line);
      out.push(line);
    }
    return { text: out.join("\n"), groups, total: nodes.length };
  };
})();
