/**
 * Malware, threat actors and ATT&CK techniques as MISP galaxy clusters, in MISP's own galaxies
 * (misp-galaxy: malpedia, threat-actor, mitre-attack-pattern). A threat is a cluster only when
 * MISP knows it (misp-clusters.ts: "AgentTesla" is `misp-galaxy:malpedia="Agent Tesla"`, with
 * MISP's uuid); any other becomes a plain tag (`loupe:malware="…"`), never a galaxy tag.
 */
import { type ExportEntity, type ExportGraph, superTypeOf, typeOf, vendorsOf } from "./graph.ts";
import { clusterNamed } from "./misp-clusters.ts";

interface Galaxy {
  uuid: string;
  name: string;
  type: string;
  namespace: string;
  description: string;
  version: string;
  icon: string;
}

export interface MispCluster {
  uuid: string;
  type: string;
  value: string;
  tag_name: string;
  description: string;
  source: string;
  authors: string[];
  meta: Record<string, string[]>;
}

const MALPEDIA: Galaxy = {
  uuid: "1d1c9af9-37fa-4deb-a928-f9b0abc7354a",
  name: "Malpedia",
  type: "malpedia",
  namespace: "misp",
  description: "Malware galaxy based on Malpedia archive.",
  version: "2",
  icon: "shield-virus",
};

const THREAT_ACTOR: Galaxy = {
  uuid: "698774c7-8022-42c4-917f-8d6e4f06ada3",
  name: "Threat Actor",
  type: "threat-actor",
  namespace: "misp",
  description:
    "Threat actors are characteristics of malicious actors (or adversaries) representing a cyber attack threat including presumed intent and historically observed behaviour.",
  version: "3",
  icon: "user-secret",
};

const ATTACK_PATTERN: Galaxy = {
  uuid: "c4e851fa-775f-11e7-8163-b774922098cd",
  name: "Attack Pattern",
  type: "mitre-attack-pattern",
  namespace: "mitre-attack",
  description: "ATT&CK Tactic",
  version: "15",
  icon: "map",
};

/** ACTOR types that are not threats (victims, bystanders): no galaxy. */
const NOT_THREATS = new Set(["NGO", "COMPANY", "PUB_INST", "INDIVIDUAL"]);
/** THREAT types that are actors rather than software. */
const ACTOR_THREATS = new Set(["APT", "CYBERCRIME"]);

function galaxyOf(e: ExportEntity): Galaxy | undefined {
  const superType = superTypeOf(e);
  if (superType === "TTP") return ATTACK_PATTERN;
  if (superType === "ACTOR") return NOT_THREATS.has(typeOf(e)) ? undefined : THREAT_ACTOR;
  if (superType === "THREAT") return ACTOR_THREATS.has(typeOf(e)) ? THREAT_ACTOR : MALPEDIA;
  return undefined;
}

/** What a threat is called when MISP knows no cluster of it: a plain tag's namespace per galaxy. */
const PLAIN_TAG: Record<string, string> = {
  malpedia: "malware",
  "threat-actor": "threat-actor",
  "mitre-attack-pattern": "attack-pattern",
};

/** The MISP cluster of a threat entity: by its name, or an ATT&CK technique by its id ("T1059.001 PowerShell"). */
function knownCluster(e: ExportEntity, galaxy: Galaxy) {
  const technique = /^(T\d{4}(?:\.\d{3})?)\b/.exec(e.name);
  if (galaxy === ATTACK_PATTERN && technique) return clusterNamed(galaxy.type, technique[1]!);
  return clusterNamed(galaxy.type, e.name);
}

const quoted = (value: string) => `"${value.replaceAll('"', "'")}"`;

/**
 * The galaxies of the graph's threats that MISP knows, each with its clusters, and the tag of each
 * threat entity (its cluster's, or a plain tag).
 */
export function galaxiesOf(graph: ExportGraph): {
  galaxies: Array<Galaxy & { GalaxyCluster: MispCluster[] }>;
  clusterTags: Map<string, string>;
} {
  const byGalaxy = new Map<Galaxy, MispCluster[]>();
  const clusterTags = new Map<string, string>();
  for (const e of graph.entities) {
    const galaxy = galaxyOf(e);
    if (!galaxy) continue;
    const known = knownCluster(e, galaxy);
    if (!known) {
      clusterTags.set(e.id, `loupe:${PLAIN_TAG[galaxy.type]}=${quoted(e.name)}`);
      continue;
    }
    const cluster: MispCluster = {
      uuid: known.uuid,
      type: galaxy.type,
      value: known.value,
      tag_name: `misp-galaxy:${galaxy.type}=${quoted(known.value)}`,
      description: e.description,
      source: "Loupe",
      authors: vendorsOf(e.attributes),
      meta: e.source_url ? { refs: [e.source_url] } : {},
    };
    clusterTags.set(e.id, cluster.tag_name);
    const clusters = byGalaxy.get(galaxy) ?? [];
    if (!clusters.some((c) => c.uuid === cluster.uuid)) clusters.push(cluster);
    byGalaxy.set(galaxy, clusters);
  }
  const galaxies = [...byGalaxy].map(([galaxy, clusters]) => ({ ...galaxy, GalaxyCluster: clusters }));
  return { galaxies, clusterTags };
}
