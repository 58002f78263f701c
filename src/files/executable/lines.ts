/**
 * Reads back the `key=value` lines the facts rules print (`rules.ts`) into a tree: scalars under
 * their key, list items as records under their list key, nested lists inside their item. Keys are
 * ours (the rule source is fixed); values are whatever the file held, kept as text.
 */
import { FACT_MODULES } from "./rules.ts";

export type FactRecord = { [key: string]: string | FactRecord[] };

interface ListSpec {
  key: string;
  lists?: readonly ListSpec[];
}

/** Every list key, nested ones spelled in full ("pe.import.function"). */
function listKeys(): Set<string> {
  const keys = new Set<string>();
  const walk = (lists: readonly ListSpec[], parent: string) => {
    for (const list of lists) {
      const key = parent ? `${parent}.${list.key}` : list.key;
      keys.add(key);
      walk(list.lists ?? [], key);
    }
  };
  for (const m of FACT_MODULES) walk(m.lists, "");
  return keys;
}

const LIST_KEYS = listKeys();

/** The list a key belongs to: the longest list key that is a proper prefix of it. */
function ownerOf(key: string): string | undefined {
  for (let cut = key.lastIndexOf("."); cut > 0; cut = key.lastIndexOf(".", cut - 1)) {
    const prefix = key.slice(0, cut);
    if (LIST_KEYS.has(prefix)) return prefix;
  }
  return undefined;
}

function itemsOf(record: FactRecord, field: string): FactRecord[] {
  const existing = record[field];
  if (Array.isArray(existing)) return existing;
  const items: FactRecord[] = [];
  record[field] = items;
  return items;
}

export function readFactLines(lines: readonly string[]): FactRecord {
  const root: FactRecord = {};
  /** The item being filled for each list key. */
  const current = new Map<string, FactRecord>();
  for (const line of lines) {
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    const owner = ownerOf(key);
    const parent = owner === undefined ? root : current.get(owner);
    if (!parent) continue;
    const field = owner === undefined ? key : key.slice(owner.length + 1);
    if (LIST_KEYS.has(key)) {
      const item: FactRecord = {};
      itemsOf(parent, field).push(item);
      current.set(key, item);
    } else {
      parent[field] = value;
    }
  }
  return root;
}
