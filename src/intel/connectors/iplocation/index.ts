/**
 * Offline IP → ASN, organisation and country, from ip-location-db's open data shipped as npm
 * packages (database.ts): nothing leaves the machine, so any TLP/PAP may use it. The data is as
 * fresh as the installed packages; `localData` gives its date and licence to the Status page.
 */
import type { Connector } from "../types.ts";
import { ASN_PACKAGE, COUNTRY_PACKAGE, dataDate, lookupIn, openDatabase } from "./database.ts";
import { normalizeIplocation } from "./normalize.ts";

export const iplocation: Connector = {
  id: "iplocation",
  vendor: "ip-location-db (offline)",
  description:
    "ASN, organisation and country of an IP address, offline (RouteViews, NRO and DB-IP data, CC BY 4.0; country data CC0); no key, nothing sent out.",
  supportedTypes: ["IPV4", "IPV6"].map((type) => ({ superType: "OBSERVABLE", type })),
  credentialFields: [],
  defaultBaseUrl: "https://github.com/sapics/ip-location-db",
  ttlSeconds: 7 * 24 * 3600, // changes only when the packages are updated
  disclosure: "local",
  keyPage: null,
  vendorPages: [],
  verdict: null, // where an address is routed says nothing good or bad of it
  async fetch(subject) {
    const found = lookupIn(await openDatabase(), subject.value);
    if (found.asn === undefined && found.country === undefined) return null;
    return { ip: subject.value, ...found, data_date: dataDate(ASN_PACKAGE) ?? null };
  },
  normalize: normalizeIplocation,
  // Reading the database takes seconds: a worker does it at start, not on the first lookup.
  async warm() {
    await openDatabase();
  },
  localData: () => [
    {
      name: "IP to ASN and organisation",
      origin: `npm package ${ASN_PACKAGE}`,
      licence: "CC BY 4.0",
      attribution: "RouteViews (routeviews.org), NRO (nro.net) and IP to ASN Lite by DB-IP",
      link: "https://db-ip.com/",
      date: dataDate(ASN_PACKAGE),
    },
    {
      name: "IP to country",
      origin: `npm package ${COUNTRY_PACKAGE}`,
      licence: "CC0 1.0",
      attribution: "ip-location-db (sapics), from GeoFeed, RIR whois and ASN data",
      date: dataDate(COUNTRY_PACKAGE),
    },
  ],
};
