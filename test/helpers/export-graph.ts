/**
 * A rich result document for the export tests, built by the real `buildDocument` from table rows:
 * a file known by three hashes, a domain and the IP it resolves to, a URL, a malware family, a
 * threat actor, a CVE, an ATT&CK technique, a report, a phone number STIX has no type for, and
 * events (a detection, passive DNS, a sighting of the malware), with several TLP and PAP levels.
 */
import { buildDocument } from "../../src/intel/domain/document.ts";
import type { ResultDocument } from "../../src/intel/domain/requests.ts";
import type { EntitiesTable, EventsTable, RelationsTable } from "../../src/intel/store/schema.ts";

export const RICH = {
  sha256: "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f",
  sha1: "3395856ce81f2b7382dee72602f798b642f14140",
  md5: "44d88612fea8a8f36de82e1278abb02f",
  domain: "evil.example",
  ip: "192.0.2.10",
  /** A quote and a backslash: the STIX pattern must escape both. */
  url: "http://evil.example/it's\\here",
  malware: "Emotet",
  actor: "TA542",
  cve: "CVE-2021-44228",
  technique: "T1059.001 PowerShell",
  phone: "+33 6 00 00 00 00",
  report: "OTX pulse: Emotet returns",
};

const T0 = "2026-11-01T10:00:00.000Z";
const T1 = "2026-11-02T10:00:00.000Z";

let serial = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`;

function entity(
  superType: string,
  type: string,
  name: string,
  extra: Partial<EntitiesTable> & { vendors?: string } = {},
): EntitiesTable {
  const { vendors = "virustotal", ...rest } = extra;
  return {
    id: uuid(),
    super_type: superType,
    type,
    name,
    description: "",
    source_url: "",
    tlp: "WHITE",
    pap: "WHITE",
    attributes: JSON.stringify({ source_vendor: vendors }),
    created_at: T0,
    updated_at: T1,
    ...rest,
  };
}

const relation = (
  name: string,
  from: EntitiesTable,
  to: EntitiesTable,
  vendor = "virustotal",
): RelationsTable => ({
  id: uuid(),
  name,
  description: "",
  obj_from: from.id,
  obj_to: to.id,
  attributes: JSON.stringify({ source_vendor: vendor }),
  created_at: T0,
});

function event(type: string, name: string, involved: EntitiesTable, vendor: string, count = 3): EventsTable {
  return {
    id: uuid(),
    type,
    name,
    first_seen: "2026-10-01T00:00:00Z",
    last_seen: "2026-10-20T00:00:00Z",
    count,
    description: "",
    attributes: JSON.stringify({ source_vendor: vendor }),
    involved_entity: involved.id,
    vendor,
    created_at: T0,
    updated_at: T1,
  };
}

/**
 * The rich document; `values` replaces some names (hostile-input tests); `rootMarks` marks the
 * root with exact TLP 2.0 levels, as exports read them (a CLEAR root is stored as WHITE).
 */
export function richDocument(
  values: Partial<typeof RICH> = {},
  description = "",
  rootMarks?: { tlp: string; pap: string },
): ResultDocument {
  const v = { ...RICH, ...values };
  const stored = (level: string) => (level === "CLEAR" ? "WHITE" : level);
  const root = entity("OBSERVABLE", "SHA256", v.sha256, {
    tlp: rootMarks ? stored(rootMarks.tlp) : "AMBER",
    pap: rootMarks ? stored(rootMarks.pap) : "GREEN",
    description: "EICAR test file",
    source_url: `https://www.virustotal.com/gui/file/${v.sha256}`,
    attributes: JSON.stringify({ source_vendor: "malwarebazaar,virustotal", vt_score: "61/76" }),
  });
  const sha1 = entity("OBSERVABLE", "SHA1", v.sha1);
  const md5 = entity("OBSERVABLE", "MD5", v.md5, { tlp: "GREEN" });
  const domain = entity("OBSERVABLE", "DOMAIN", v.domain, { tlp: "RED", pap: "RED" });
  const ip = entity("OBSERVABLE", "IPV4", v.ip);
  const url = entity("OBSERVABLE", "URL", v.url, { vendors: "urlhaus" });
  const malware = entity("THREAT", "TROJAN", v.malware, {
    description: description || "Banking trojan turned loader",
  });
  const actor = entity("ACTOR", "THREAT_ACTOR", v.actor, { vendors: "otx" });
  const cve = entity("OBSERVABLE", "CVE", v.cve, { vendors: "vulnlookup" });
  const technique = entity("TTP", "MITRE", v.technique, { vendors: "otx" });
  const phone = entity("OBSERVABLE", "PHONE", v.phone);
  const report = entity("EXT_DOC", "REPORT", v.report, {
    vendors: "otx",
    source_url: "https://otx.alienvault.com/pulse/1",
  });
  return buildDocument(
    {
      root,
      entities: [root, sha1, md5, domain, ip, url, malware, actor, cve, technique, phone, report],
      relations: [
        relation("same file as", root, sha1),
        relation("same file as", root, md5),
        relation("associated threat", root, malware),
        relation("contacts", root, domain),
        relation("resolves", domain, ip),
        relation("points to", url, domain, "urlhaus"),
        relation("attributed to", malware, actor, "otx"),
        relation("exploits", malware, cve, "otx"),
        relation("uses", malware, technique, "otx"),
        relation("mentions", phone, root),
        relation("documents", report, malware, "otx"),
        relation("documents", report, domain, "otx"),
      ],
      events: [
        event("AV_DETECTION", "Kaspersky: EICAR-Test-File", root, "virustotal", 61),
        event("PASSIVE_DNS", `${v.domain} → ${v.ip}`, domain, "virustotal", 0),
        event("HIT", "Emotet campaign", malware, "otx"),
        event("HIT", "URL online", url, "urlhaus", 5),
      ],
    },
    {
      virustotal: { status: "ok", error: null, fetched_at: T1, age_seconds: 0, from_cache: false },
      malwarebazaar: { status: "ok", error: null, fetched_at: T1, age_seconds: 0, from_cache: false },
      urlhaus: { status: "not_found", error: null, fetched_at: T1, age_seconds: 0, from_cache: false },
    },
    { exactMarkings: rootMarks !== undefined },
  );
}
