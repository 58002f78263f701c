/**
 * The Mermaid `flowchart LR` of a result: node ids are generated (n0, n1…), labels are quoted
 * with every character outside a small safe set written as a Mermaid entity code (`#60;`), so no
 * vendor-supplied name can break out of its label or inject syntax.
 */

export interface GraphNode {
  id: string;
  label: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string;
}

const SAFE = /[A-Za-z0-9 .,:/_@+=?*'-]/;

export function escapeLabel(text: string): string {
  let out = "";
  for (const ch of text.replace(/\s+/g, " ").trim()) out += SAFE.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  return out || "#160;";
}

/** Nodes and edges are drawn in the order given; callers sort them for a stable drawing. */
export function toMermaid(nodes: GraphNode[], edges: GraphEdge[]): string {
  const ids = new Map(nodes.map((n, i) => [n.id, `n${i}`]));
  const lines = ["flowchart LR"];
  for (const n of nodes) lines.push(`  ${ids.get(n.id)}["${escapeLabel(n.label)}"]`);
  for (const e of edges) {
    const from = ids.get(e.from);
    const to = ids.get(e.to);
    if (from && to) lines.push(`  ${from} -->|"${escapeLabel(e.label)}"| ${to}`);
  }
  return lines.join("\n");
}
