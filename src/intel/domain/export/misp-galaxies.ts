/**
 * Malware, threat actors and ATT&CK techniques as MISP galaxy clusters, in MISP's own galaxies
 * (misp-galaxy: malpedia, threat-actor, mitre-attack-pattern). A cluster is named by its tag
 * (`misp-galaxy:threat-actor="TA542"`), which MISP matches to the cluster it knows by that name.
 */
import { type ExportEntity, type ExportGraph, superTypeOf, typeOf, vendorsOf } from "./graph.ts";
import { loupeUuid } from "./ids.ts";

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

/** The cluster value MISP uses for an ATT&CK technique: "PowerShell - T1059.001". */
function clusterValue(e: ExportEntity, galaxy: Galaxy): string {
  const technique = /^(T\d{4}(?:\.\d{3})?)\s*[-:]?\s*(.+)$/.exec(e.name);
  if (galaxy === ATTACK_PATTERN && technique) return `${technique[2]} - ${technique[1]}`;
  return e.name;
}

/** The galaxies of the graph's threats, each with its clusters, and the cluster tag of each threat entity. */
export function galaxiesOf(graph: ExportGraph): {
  galaxies: Array<Galaxy & { GalaxyCluster: MispCluster[] }>;
  clusterTags: Map<string, string>;
} {
  const byGalaxy = new Map<Galaxy, MispCluster[]>();
  const clusterTags = new Map<string, string>();
  for (const e of graph.entities) {
    const galaxy = galaxyOf(e);
    if (!galaxy) continue;
    const value = clusterValue(e, galaxy);
    const cluster: MispCluster = {
      uuid: loupeUuid("misp-cluster", galaxy.type, value),
      type: galaxy.type,
      value,
      tag_name: `misp-galaxy:${galaxy.type}="${value.replaceAll('"', "'")}"`,
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
