// Investigate: the verdict card's facts from a result document. The overall assessment is the worst
// of the vendors' own verdicts (the rule is in docs/admin.md); nothing here invents a score.
// Attributes are merged across vendors, so only vendor-specific ones are read as a vendor's verdict.
window.loupeVerdict = (() => {
  const RANK = { unknown: 0, clean: 1, suspicious: 2, malicious: 3 };
  const num = (v) => (v === undefined || v === null || v === "" ? undefined : Number(v));

  // Each vendor's own verdict, from the attributes that only that vendor writes.
  const RULES = {
    virustotal: (a) => {
      const bad = num(a.vt_malicious);
      if (bad === undefined) return undefined;
      if (bad >= 3) return "malicious";
      return bad > 0 || num(a.vt_suspicious) > 0 ? "suspicious" : "clean";
    },
    abuseipdb: (a) => {
      const score = num(a.abuse_confidence_score);
      if (score === undefined) return undefined;
      return score >= 50 ? "malicious" : score > 0 ? "suspicious" : "clean";
    },
    greynoise: (a) =>
      ({ malicious: "malicious", benign: "clean", suspicious: "suspicious" })[a.greynoise_classification],
    hashlookup: (a) => (a.known_file === "true" ? (a.known_malicious ? "malicious" : "clean") : undefined),
    // abuse.ch lists only what is reported as malicious: being listed is its verdict.
    threatfox: (a) => (num(a.threatfox_confidence) > 0 ? "malicious" : undefined),
    otx: (a) => (num(a.otx_reputation) < 0 ? "suspicious" : undefined),
  };
  const LISTS = ["malwarebazaar", "urlhaus"];

  function vendorVerdict(id, attrs, source) {
    if (source?.status !== "ok") return "unknown";
    if (RULES[id]) return RULES[id](attrs) ?? "unknown";
    const vendors = (attrs.source_vendor ?? "").split(",");
    if (LISTS.includes(id) && vendors.includes(id) && attrs.is_malicious === "true") return "malicious";
    return "unknown";
  }

  function dates(doc) {
    const all = (doc.events ?? []).concat(doc.neighbour_events ?? []);
    const mine = all.filter((e) => e.involved_entity === doc.root_entity.id);
    const seen = (mine.length ? mine : all)
      .flatMap((e) => [e.first_seen, e.last_seen])
      .filter(Boolean)
      .sort();
    return { firstSeen: seen[0], lastSeen: seen.at(-1) };
  }

  function named(doc, superType) {
    const linked = new Set(
      (doc.relations ?? []).flatMap((r) =>
        r.obj_from === doc.root_entity.id ? [r.obj_to] : r.obj_to === doc.root_entity.id ? [r.obj_from] : [],
      ),
    );
    return (doc.entities ?? []).filter((e) => e.super_type?.short_name === superType && linked.has(e.id));
  }

  return (doc) => {
    const attrs = doc.root_entity.attributes ?? {};
    const vendors = Object.entries(doc.sources ?? {}).map(([id, source]) => ({
      id,
      status: source.status,
      error: source.error,
      fetched_at: source.fetched_at,
      verdict: vendorVerdict(id, attrs, source),
    }));
    const assessment = vendors.reduce(
      (worst, v) => (RANK[v.verdict] > RANK[worst] ? v.verdict : worst),
      "unknown",
    );
    const tags = [
      ...new Set(
        (attrs.tags ?? "")
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
    const detections = [];
    if (attrs.vt_score) detections.push(`VirusTotal ${attrs.vt_score}`);
    if (attrs.abuse_confidence_score)
      detections.push(`AbuseIPDB confidence ${attrs.abuse_confidence_score}%`);
    if (attrs.threatfox_confidence) detections.push(`ThreatFox confidence ${attrs.threatfox_confidence}%`);
    return {
      assessment,
      vendors,
      detections,
      tags,
      threats: named(doc, "THREAT"),
      ...dates(doc),
    };
  };
})();

// Where a person reads the vendor's own page about a value (none for a user's own MISP).
window.loupeVendorPage = (id, subject) => {
  const v = encodeURIComponent(subject.value);
  const t = subject.type;
  const hash = { MD5: "md5", SHA1: "sha1", SHA256: "sha256" }[t];
  const ip = t === "IPV4" || t === "IPV6";
  const pages = {
    virustotal: `https://www.virustotal.com/gui/search/${v}`,
    otx: `https://otx.alienvault.com/browse/global/pulses?q=${v}`,
    shodan: ip ? `https://www.shodan.io/host/${v}` : `https://www.shodan.io/search?query=${v}`,
    abuseipdb: ip ? `https://www.abuseipdb.com/check/${v}` : undefined,
    greynoise: ip ? `https://viz.greynoise.io/ip/${v}` : undefined,
    urlscan: `https://urlscan.io/search/#${v}`,
    threatfox: `https://threatfox.abuse.ch/browse.php?search=ioc%3A${v}`,
    malwarebazaar: hash ? `https://bazaar.abuse.ch/browse.php?search=${hash}%3A${v}` : undefined,
    urlhaus: `https://urlhaus.abuse.ch/browse.php?search=${v}`,
    hashlookup: hash ? `https://hashlookup.circl.lu/lookup/${hash}/${v}` : undefined,
  };
  return pages[id];
};
