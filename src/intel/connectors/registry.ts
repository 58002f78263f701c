/** Every connector Loupe knows; ids are fixed by DESIGN §3. */
import { malwarebazaar, threatfox, urlhaus } from "./abusech.ts";
import { hashlookup } from "./hashlookup.ts";
import { abuseipdb, greynoise } from "./ip-reputation.ts";
import { misp } from "./misp.ts";
import { otx } from "./otx.ts";
import { shodan } from "./shodan.ts";
import type { Connector, TypeRef } from "./types.ts";
import { urlscan } from "./urlscan.ts";
import { virustotal } from "./virustotal.ts";

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
];

export function connectorById(id: string, connectors: Connector[] = CONNECTORS): Connector | undefined {
  return connectors.find((c) => c.id === id);
}

export function supports(connector: Connector, type: TypeRef): boolean {
  return connector.supportedTypes.some((t) => t.superType === type.superType && t.type === type.type);
}
