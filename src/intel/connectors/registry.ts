/**
 * Every connector Loupe knows, one folder each (`<id>/index.ts`): the only list of connector ids.
 * Ids never change once shipped, since credentials and stored outcomes are keyed by them.
 */

import { abuseipdb } from "./abuseipdb/index.ts";
import { blocklists } from "./blocklists/index.ts";
import { crtsh } from "./crtsh/index.ts";
import { greynoise } from "./greynoise/index.ts";
import { hashlookup } from "./hashlookup/index.ts";
import { iplocation } from "./iplocation/index.ts";
import { malwarebazaar } from "./malwarebazaar/index.ts";
import { misp } from "./misp/index.ts";
import { mvt } from "./mvt/index.ts";
import { otx } from "./otx/index.ts";
import { rdap } from "./rdap/index.ts";
import { shodan } from "./shodan/index.ts";
import { threatfox } from "./threatfox/index.ts";
import type { Connector, TypeRef } from "./types.ts";
import { urlhaus } from "./urlhaus/index.ts";
import { urlscan } from "./urlscan/index.ts";
import { virustotal } from "./virustotal/index.ts";
import { vulnlookup } from "./vulnlookup/index.ts";

export const CONNECTORS: Connector[] = [
  virustotal,
  hashlookup,
  malwarebazaar,
  urlhaus,
  threatfox,
  abuseipdb,
  greynoise,
  shodan,
  otx,
  urlscan,
  misp,
  vulnlookup,
  iplocation,
  mvt,
  blocklists,
  rdap,
  crtsh,
];

export function connectorById(id: string, connectors: Connector[] = CONNECTORS): Connector | undefined {
  return connectors.find((c) => c.id === id);
}

export function supports(connector: Connector, type: TypeRef): boolean {
  return connector.supportedTypes.some((t) => t.superType === type.superType && t.type === type.type);
}
