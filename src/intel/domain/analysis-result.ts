/**
 * What intel reads in the files service's `/analyzer/all` answer (docs/antivirus.md, "The
 * verdict"; docs/extraction.md, the tree): the verdict level, every node's name and hashes (the
 * history's search index) and the indicators with the node paths they were found at. Pure: the
 * answer is data from another service, read defensively.
 */

export interface TreeNodeIndex {
  path: string;
  name: string;
  sha256: string | null;
  sha1: string | null;
  md5: string | null;
}

export interface FoundIndicator {
  superType: string;
  type: string;
  value: string;
  paths: string[];
}

export interface UploadFacts {
  name: string;
  sha256: string;
  sha1: string;
  md5: string;
}

type Loose = Record<string, unknown>;

const isObject = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
const HEX = /^[0-9a-f]+$/;
/** A hash as the index keeps it: lower case, of the right length, or null. */
const hashOf = (v: unknown, length: number): string | null => {
  const h = text(v)?.toLowerCase() ?? null;
  return h && h.length === length && HEX.test(h) ? h : null;
};

const LEVELS = new Set(["malicious", "suspicious", "clean", "incomplete"]);

/** The verdict level of the answer, or null when it has none a client would recognise. */
export function verdictLevel(answer: unknown): string | null {
  const level = isObject(answer) && isObject(answer.verdict) ? text(answer.verdict.level) : null;
  return level && LEVELS.has(level) ? level : null;
}

function entry(answer: unknown, processor: string): Loose | null {
  if (!isObject(answer) || !isObject(answer.processors)) return null;
  const e = answer.processors[processor];
  return isObject(e) && e.success === true && isObject(e.analysis) ? e.analysis : null;
}

/** The analysed file's own type as the files service's extractor names it (`image/png`), or null. */
export function rootType(answer: unknown): string | null {
  return text(entry(answer, "extractor")?.type);
}

/** Every node of the tree with its hashes; the upload itself first (from what intel hashed) when the tree lacks it. */
export function treeIndex(answer: unknown, upload: UploadFacts): TreeNodeIndex[] {
  const extra = entry(answer, "extractor")?.extra;
  const tree = isObject(extra) && isObject(extra.tree) ? extra.tree : null;
  const raw = tree && Array.isArray(tree.nodes) ? tree.nodes : [];
  const nodes: TreeNodeIndex[] = [];
  for (const n of raw) {
    if (!isObject(n)) continue;
    const path = text(n.path);
    if (!path) continue;
    const hashes = isObject(n.hashes) ? n.hashes : {};
    nodes.push({
      path,
      name: text(n.name) ?? path.split(" › ").pop() ?? path,
      sha256: hashOf(hashes.sha256, 64),
      sha1: hashOf(hashes.sha1, 40),
      md5: hashOf(hashes.md5, 32),
    });
  }
  if (!nodes.some((n) => n.sha256 === upload.sha256 && !n.path.includes(" › ")))
    nodes.unshift({
      path: upload.name,
      name: upload.name,
      sha256: upload.sha256,
      sha1: upload.sha1,
      md5: upload.md5,
    });
  return nodes;
}

/**
 * The indicators of the answer (iocs' list), each with the node paths it was found at, in the
 * answer's order. A location without a path is in the upload itself (a file with no children has
 * no paths in its locations): `rootPath`.
 */
export function foundIndicators(answer: unknown, rootPath: string): FoundIndicator[] {
  const list = entry(answer, "iocs")?.indicators;
  if (!Array.isArray(list)) return [];
  const out: FoundIndicator[] = [];
  for (const i of list) {
    if (!isObject(i)) continue;
    const superType = text(i.super_type);
    const type = text(i.type);
    const value = text(i.value);
    if (!superType || !type || !value) continue;
    const locations = Array.isArray(i.locations) ? i.locations : [];
    const paths = [...new Set(locations.flatMap((l) => (isObject(l) ? [text(l.path) ?? rootPath] : [])))];
    out.push({ superType, type, value, paths });
  }
  return out;
}
