/**
 * Entities that are STIX Domain Objects: malware, threat actors, attack patterns, vulnerabilities,
 * identities and reports, with their STIX vocabulary words. Only the type-specific properties are here;
 * stix.ts adds the common ones (id, times, creator, markings).
 */
import type { ExportEntity } from "./graph.ts";

export interface Sdo {
  type: string;
  props: Record<string, unknown>;
}

/** Taxonomy THREAT types → STIX malware-type-ov. */
const MALWARE_TYPES: Record<string, string> = {
  ADWARE: "adware",
  BACKDOOR: "backdoor",
  BOTNET: "bot",
  CRYPTOJACKING: "resource-exploitation",
  DROPPER: "dropper",
  EXPLOIT_KIT: "exploit-kit",
  INFO_STEALER: "spyware",
  LOADER: "downloader",
  RANSOMWARE: "ransomware",
  RAT: "remote-access-trojan",
  ROOTKIT: "rootkit",
  SPYWARE: "spyware",
  STALKERWARE: "spyware",
  TROJAN: "trojan",
};

/** THREAT types that are ways of attacking rather than software. */
const ATTACK_THREATS = new Set([
  "PHISHING",
  "SPAM",
  "MALVERTISING",
  "CYBER_ATTACK",
  "PHYSICAL_ATTACK",
  "HARASSMENT",
  "DOXXING",
]);

/** Taxonomy types of actors (ACTOR and THREAT) → STIX threat-actor-type-ov. */
const THREAT_ACTOR_TYPES: Record<string, string> = {
  APT: "nation-state",
  NATION_STATE: "nation-state",
  CYBER_CRIMINAL: "criminal",
  CYBERCRIME: "crime-syndicate",
  HACKTIVIST: "activist",
};

/** ACTOR types that are not threats: who they are, as identities. */
const IDENTITY_CLASSES: Record<string, string> = {
  NGO: "organization",
  COMPANY: "organization",
  PUB_INST: "organization",
  INDIVIDUAL: "individual",
};

const threatActor = (e: ExportEntity): Sdo => ({
  type: "threat-actor",
  props: { name: e.name, threat_actor_types: [THREAT_ACTOR_TYPES[e.type.short_name] ?? "unknown"] },
});

function fromThreat(e: ExportEntity): Sdo {
  const type = e.type.short_name;
  if (type === "APT" || type === "CYBERCRIME") return threatActor(e);
  if (ATTACK_THREATS.has(type)) return { type: "attack-pattern", props: { name: e.name } };
  return {
    type: "malware",
    props: { name: e.name, is_family: true, malware_types: [MALWARE_TYPES[type] ?? "unknown"] },
  };
}

function fromActor(e: ExportEntity): Sdo {
  const identityClass = IDENTITY_CLASSES[e.type.short_name];
  if (identityClass) return { type: "identity", props: { name: e.name, identity_class: identityClass } };
  return threatActor(e);
}

/** An ATT&CK technique id at the start of a name ("T1059.001 Command…"). */
const ATTACK_ID = /^T\d{4}(?:\.\d{3})?(?![0-9])/;

function attackPattern(e: ExportEntity): Sdo {
  const id = ATTACK_ID.exec(e.name)?.[0];
  const reference = id ? [{ source_name: "mitre-attack", external_id: id }] : [];
  return { type: "attack-pattern", props: { name: e.name, external_references: reference } };
}

/** The SDO of an entity, or undefined when it is an observable or STIX has no object for it. */
export function entitySdo(e: ExportEntity): Sdo | undefined {
  const superType = e.super_type.short_name;
  if (superType === "THREAT") return fromThreat(e);
  if (superType === "ACTOR") return fromActor(e);
  if (superType === "TTP") return attackPattern(e);
  // Its object_refs (what it documents) are filled in once every object is known (stix.ts).
  if (superType === "EXT_DOC")
    return {
      type: "report",
      props: { name: e.name, published: e.created_at, report_types: ["threat-report"] },
    };
  if (superType === "OBSERVABLE" && e.type.short_name === "CVE")
    return {
      type: "vulnerability",
      props: { name: e.name, external_references: [{ source_name: "cve", external_id: e.name }] },
    };
  return undefined;
}
