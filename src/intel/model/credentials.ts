/**
 * One credential set of a vendor, field name → value ("api_key", MISP's "url"): what the panel
 * takes, the store keeps and a connector's `fetch` receives.
 */
export type Credentials = Record<string, string>;
