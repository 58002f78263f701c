/**
 * The user's own MISP: `POST /attributes/restSearch` by value, or by galaxy tag for a threat actor.
 * Its base URL is a credential (`url`), so it is never asked with a default, and never TLP-gated.
 */
import type { Connector } from "../types.ts";
import { actorTag, normalizeMisp } from "./normalize.ts";

export const misp: Connector = {
  id: "misp",
  vendor: "MISP",
  description:
    "Your MISP instance: the events that hold an observable, with their tags; a threat actor by its galaxy tag.",
  supportedTypes: [
    ...["IPV4", "IPV6", "DOMAIN", "HOSTNAME", "URL", "MD5", "SHA1", "SHA256", "EMAIL", "CVE"].map((type) => ({
      superType: "OBSERVABLE",
      type,
    })),
    { superType: "ACTOR", type: "THREAT_ACTOR" },
  ],
  credentialFields: ["api_key", "url"],
  defaultBaseUrl: "",
  baseUrlCredential: "url",
  ttlSeconds: 3600, // your own instance: analysts add to it all day; it is not a third party
  disclosure: "own_instance",
  keyPage: null,
  vendorPages: [], // the instance's address is a credential, which the panel's pages never carry
  verdict: null, // your analysts' events: read them, Loupe does not judge them
  async fetch(subject, credentials, { http }) {
    const res = await http.post("/attributes/restSearch", {
      json:
        subject.type === "THREAT_ACTOR"
          ? { returnFormat: "json", tags: [actorTag(subject.value)], includeEventTags: true, limit: 100 }
          : { returnFormat: "json", value: subject.value, includeEventTags: true, limit: 100 },
      headers: { Authorization: credentials.api_key ?? "" },
    });
    const body = res.json() as { response?: { Attribute?: unknown[] } };
    return body.response?.Attribute?.length ? body : null;
  },
  normalize: normalizeMisp,
};
