/**
 * The Mermaid `flowchart LR` of a result: node ids are the entity ids (UUIDs, as Threatr writes
 * them: `<uuid>("label")`) so a client maps nodes to entities; labels are quoted with every
 * character outside a small safe set written as a Mermaid entity code (`#60;`), so no
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

/** Every character outside the safe set (whole code points: `u`). */
const UNSAFE = /[^A-Za-z0-9 .,:/_@+=?*'-]/gu;
/** Letters, digits and single hyphens inside: a UUID fits, nothing Mermaid reads as an edge does. */
const SAFE_ID = /^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/;

export function escapeLabel(text: string): string {
  const out = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(UNSAFE, (ch) => `#${ch.codePointAt(0)};`);
  return out || "#160;";
}

/** Nodes and edges are drawn in the order given; callers sort them for a stable drawing. */
export function toMermaid(nodes: GraphNode[], edges: GraphEdge[]): string {
  // Ids come from our database (UUIDs); anything else is refused rather than trusted into the syntax.
  const ids = new Set(nodes.filter((n) => SAFE_ID.test(n.id)).map((n) => n.id));
  const lines = ["flowchart LR"];
  for (const n of nodes) if (ids.has(n.id)) lines.push(`  ${n.id}("${escapeLabel(n.label)}")`);
  for (const e of edges) {
    if (ids.has(e.from) && ids.has(e.to)) lines.push(`  ${e.from} -->|"${escapeLabel(e.label)}"| ${e.to}`);
  }
  return lines.join("\n");
}
