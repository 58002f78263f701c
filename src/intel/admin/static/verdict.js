// Investigate: the verdict card's facts from a result document. The overall assessment is the worst
// of the vendors' own verdicts (the rule is in docs/admin.md); nothing here invents a score. Each
// vendor's rule, detection line and pages are data from its connector (`verdict`, `vendorPages` in
// connectors/<id>/index.ts), handed in by the page as the `vendors` table: no vendor is named here.
window.loupeVerdict = (() => {
  const RANK = { unknown: 0, clean: 1, suspicious: 2, malicious: 3 };
  const num = (v) => (v === undefined || v === null || v === "" ? undefined : Number(v));

  // One AttributeTest of connectors/types.ts on the root entity's attributes (all strings).
  function holds(test, attrs) {
    const raw = attrs[test.attribute];
    switch (test.is) {
      case "present":
        return raw !== undefined && raw !== null && raw !== "";
      case "=":
        return raw === String(test.value);
      case ">=":
        return num(raw) >= test.value;
      case ">":
        return num(raw) > test.value;
      case "<":
        return num(raw) < test.value;
      case "lists":
        return String(raw ?? "")
          .split(",")
          .map((item) => item.trim())
          .includes(String(test.value));
      default:
        return false;
    }
  }

  // A vendor's own verdict by its VerdictRule (connectors/types.ts); "unknown" without one.
  function vendorVerdict(rule, attrs, source) {
    if (source?.status !== "ok" || !rule) return "unknown";
    if (!(rule.when ?? []).every((test) => holds(test, attrs))) return "unknown";
    return rule.cases.find((c) => holds(c, attrs))?.verdict ?? rule.otherwise ?? "unknown";
  }

  // The vendors' detection lines ("VirusTotal {vt_score}"), for the attributes that are set.
  function detections(vendors, attrs) {
    return Object.values(vendors)
      .map((v) => v.verdict?.detection)
      .filter(Boolean)
      .flatMap((line) => {
        const name = /\{(\w+)\}/.exec(line)?.[1];
        return name && attrs[name] ? [line.replace(`{${name}}`, attrs[name])] : [];
      });
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

  const DAY_MS = 86_400_000;

  // What the keyless sources say of the value, from the attribute names they share (connectors'
  // docs list them): network, Tor, lists, spyware, registration (a domain registered in the last
  // week is a signal), certificates. `signal` marks what should catch the eye.
  function facts(attrs, now) {
    const out = [];
    const add = (label, text, signal = false) => text && out.push({ label, text, signal });
    add("Network", [attrs.asn, attrs.as_owner].filter(Boolean).join(" "));
    add("Country", attrs.country);
    add(
      "Network range",
      attrs.network_name ? `${attrs.network_name} (${attrs.network_range ?? ""})` : attrs.ip_range,
    );
    if (attrs.tor_exit === "true") add("Tor", "Tor exit node", true);
    add("Blocklisted", attrs.blocklisted ? `on ${attrs.blocklisted}` : "", true);
    add(
      "Botnet C2",
      attrs.botnet_c2 && attrs.botnet_c2 !== "true" ? attrs.botnet_c2 : attrs.botnet_c2 ? "yes" : "",
      true,
    );
    add(
      "Spyware",
      attrs.spyware ? `${attrs.spyware}${attrs.spyware_sources ? ` (${attrs.spyware_sources})` : ""}` : "",
      true,
    );
    const created = Date.parse(attrs.created ?? "");
    if (!Number.isNaN(created)) {
      const days = Math.floor((now - created) / DAY_MS);
      const when = `${attrs.created.slice(0, 10)} (${days < 1 ? "today" : `${days} day${days === 1 ? "" : "s"} ago`})`;
      add("Registered", days < 7 ? `${when}: registered this week` : when, days < 7);
    }
    add("Registrar", attrs.registrar);
    add("Expires", attrs.expires?.slice(0, 10));
    add(
      "Certificates",
      attrs.cert_count ? `${attrs.cert_count} logged, ${attrs.cert_sibling_names ?? 0} other names` : "",
    );
    return out;
  }

  return (doc, vendorTable, now = Date.now()) => {
    const attrs = doc.root_entity.attributes ?? {};
    const vendors = Object.entries(doc.sources ?? {}).map(([id, source]) => ({
      id,
      status: source.status,
      error: source.error,
      fetched_at: source.fetched_at,
      verdict: vendorVerdict(vendorTable[id]?.verdict, attrs, source),
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
    return {
      assessment,
      vendors,
      detections: detections(vendorTable, attrs),
      tags,
      threats: named(doc, "THREAT"),
      facts: facts(attrs, now),
      ...dates(doc),
    };
  };
})();

// Where a person reads the vendor's own page about a value: the first of its VendorPages that fits
// the subject's type, `{value}` and `{type}` filled in (none for a user's own MISP).
window.loupeVendorPage = (vendor, subject) => {
  const page = (vendor?.vendorPages ?? []).find((p) => !p.types || p.types.includes(subject.type));
  return page?.url
    .replaceAll("{value}", encodeURIComponent(subject.value))
    .replaceAll("{type}", encodeURIComponent(subject.type.toLowerCase()));
};
