/**
 * What the panel tells a person about each vendor that the connectors do not: where its key is
 * obtained, and a readable name for each credential field (connectors name fields for code).
 */

/** Where an account and its API key are made, by connector id (MISP is the user's own server). */
export const KEY_PAGES: Record<string, string> = {
  virustotal: "https://www.virustotal.com/gui/my-apikey",
  otx: "https://otx.alienvault.com/api",
  shodan: "https://account.shodan.io/",
  abuseipdb: "https://www.abuseipdb.com/account/api",
  greynoise: "https://viz.greynoise.io/account/api-key",
  urlscan: "https://urlscan.io/user/profile/",
  threatfox: "https://auth.abuse.ch/",
  malwarebazaar: "https://auth.abuse.ch/",
  urlhaus: "https://auth.abuse.ch/",
};

const FIELD_LABELS: Record<string, string> = {
  api_key: "API key",
  url: "Server address (https://…)",
};

export function fieldLabel(name: string): string {
  return FIELD_LABELS[name] ?? name.replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}
