/**
 * A loopback server standing in for the sources of Loupe's local feeds, each file in its real
 * format (written for the tests, not copied): the MVT index (YAML) and a STIX 2.1 bundle, the Tor
 * exit list, Feodo Tracker's and SSLBL's CSV, Spamhaus DROP/EDROP and OpenPhish. It answers
 * conditional GETs (ETag, Last-Modified → 304), records each request, and can be told to fail.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { serveOnLoopback } from "./loopback.ts";

export const SPY_DOMAIN = "spyware-c2.example.org";
export const TOR_EXIT = "192.0.2.66";
export const FEODO_C2 = "198.51.100.23";
export const DROP_RANGE = "203.0.113.0/24";
export const PHISH_URL = "http://login-verify.example.net/account/";

/** A STIX 2.1 bundle as MVT's collections are written: malware, indicators, `indicates` relationships. */
export function spywareBundle(): string {
  const malware = "malware--0b7d1f7e-5c3a-4c6e-9d55-1f1a2b3c4d5e";
  const indicator = (n: number, pattern: string, extra: Record<string, unknown> = {}) => ({
    type: "indicator",
    spec_version: "2.1",
    id: `indicator--00000000-0000-4000-8000-00000000000${n}`,
    created: "2026-11-01T00:00:00.000Z",
    modified: "2026-11-01T00:00:00.000Z",
    indicator_types: ["malicious-activity"],
    pattern,
    pattern_type: "stix",
    pattern_version: "2.1",
    valid_from: "2026-11-01T00:00:00.000Z",
    ...extra,
  });
  const indicates = (n: number) => ({
    type: "relationship",
    spec_version: "2.1",
    id: `relationship--00000000-0000-4000-9000-00000000000${n}`,
    created: "2026-11-01T00:00:00.000Z",
    modified: "2026-11-01T00:00:00.000Z",
    relationship_type: "indicates",
    source_ref: `indicator--00000000-0000-4000-8000-00000000000${n}`,
    target_ref: malware,
  });
  return JSON.stringify({
    type: "bundle",
    id: "bundle--5f1e2d3c-4b5a-4968-8776-655443322110",
    objects: [
      {
        type: "malware",
        spec_version: "2.1",
        id: malware,
        created: "2026-11-01T00:00:00.000Z",
        modified: "2026-11-01T00:00:00.000Z",
        name: "ExampleSpy",
        is_family: false,
      },
      indicator(1, `[domain-name:value='${SPY_DOMAIN}']`, {
        external_references: [{ source_name: "report", url: "https://example.org/research/examplespy-c2" }],
      }),
      indicator(2, "[ipv4-addr:value='192.0.2.99']"),
      indicator(3, "[email-addr:value='Operator@Example.org']"),
      indicator(4, "[file:hashes.sha256='AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']"),
      indicator(5, "[app:id='com.example.spyagent']"),
      indicator(6, "[process:name='spyagentd']"),
      indicator(7, "[mutex:name='not-a-taxonomy-type']"),
      indicator(8, "[url:value='https://spyware-c2.example.org/x'] OR [ipv6-addr:value='2001:DB8::99']"),
      ...[1, 2, 3, 4, 5, 6, 7, 8].map(indicates),
    ],
  });
}

/** An `indicators.yaml` as mvt-project/mvt-indicators writes it: one collection on GitHub, one by URL. */
export function mvtIndex(downloadBase: string): string {
  return `indicators:
  -
    type: github
    name: Example Spyware Indicators of Compromise
    sources:
      - Amnesty International
      - Citizen Lab
    references:
      - https://example.org/research/examplespy
    github:
      owner: example-org
      repo: investigations
      branch: main
      path: 2026-11-01_examplespy/examplespy.stix2
  -
    type: download
    name: Second Example Collection
    sources:
      - Example Lab
    download_url: ${downloadBase}/downloads/second.stix2
`;
}

const FILES = (base: string): Record<string, string> => ({
  "/indicators.yaml": mvtIndex(base),
  "/example-org/investigations/main/2026-11-01_examplespy/examplespy.stix2": spywareBundle(),
  "/downloads/second.stix2": JSON.stringify({ type: "bundle", id: "bundle--1", objects: [] }),
  "/torbulkexitlist": `${TOR_EXIT}\n192.0.2.67\n`,
  "/ipblocklist.csv": `################################################################
# abuse.ch Feodo Tracker Botnet C2 IP Blocklist (CSV)          #
################################################################
#
"first_seen_utc","dst_ip","dst_port","c2_status","last_online","malware"
"2026-10-30 12:00:00","${FEODO_C2}","443","online","2026-11-26","QakBot"
"2026-10-31 08:15:00","198.51.100.24","8080","offline","2026-11-02","Emotet"
`,
  "/sslipblacklist.csv": `################################################################
# abuse.ch SSLBL Botnet C2 IP Blacklist (CSV)                  #
################################################################
#
# Firstseen,DstIP,DstPort
2026-11-20 10:00:00,${FEODO_C2},443
`,
  "/drop.txt": `; Spamhaus DROP List 2026/11/27 - (c) 2026 The Spamhaus Project SLU
; https://www.spamhaus.org/drop/drop.txt
${DROP_RANGE} ; SBL000001
198.18.0.0/15 ; SBL000002
`,
  "/edrop.txt": "; Spamhaus EDROP List 2026/11/27\n",
  "/feed.txt": `${PHISH_URL}\nhttps://secure-update.example.com/verify.php\n`,
});

export interface FakeFeeds {
  url: string;
  /** Each request: path and its conditional headers. */
  requests: Array<{ path: string; ifNoneMatch?: string; ifModifiedSince?: string }>;
  /** Paths answered 500 from now on. */
  failing: Set<string>;
  /** Replaces a file's body (a new version: a new ETag). */
  set(path: string, body: string): void;
  /** The env settings pointing every feed at this server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const LAST_MODIFIED = "Fri, 27 Nov 2026 06:00:00 GMT";

export async function startFakeFeeds(): Promise<FakeFeeds> {
  let files: Record<string, string> = {};
  const requests: FakeFeeds["requests"] = [];
  const failing = new Set<string>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const ifNoneMatch = req.headers["if-none-match"];
    const ifModifiedSince = req.headers["if-modified-since"];
    requests.push({
      path,
      ...(ifNoneMatch ? { ifNoneMatch } : {}),
      ...(ifModifiedSince ? { ifModifiedSince } : {}),
    });
    const body = files[path];
    if (failing.has(path)) return res.writeHead(500).end("upstream broken");
    if (body === undefined) return res.writeHead(404).end();
    const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
    if (ifNoneMatch === etag) return res.writeHead(304, { etag }).end();
    res.writeHead(200, { etag, "last-modified": LAST_MODIFIED, "content-type": "text/plain" }).end(body);
  });
  const served = await serveOnLoopback(server);
  files = FILES(served.url);
  return {
    url: served.url,
    requests,
    failing,
    set: (path, body) => {
      files[path] = body;
    },
    env: () => ({
      INTEL_MVT_INDEX_URL: `${served.url}/indicators.yaml`,
      INTEL_MVT_FILES_BASE_URL: served.url,
      INTEL_BLOCKLIST_TOR_EXITS_URL: `${served.url}/torbulkexitlist`,
      INTEL_BLOCKLIST_FEODO_URL: `${served.url}/ipblocklist.csv`,
      INTEL_BLOCKLIST_SSLBL_URL: `${served.url}/sslipblacklist.csv`,
      INTEL_BLOCKLIST_SPAMHAUS_DROP_URL: `${served.url}/drop.txt`,
      INTEL_BLOCKLIST_SPAMHAUS_EDROP_URL: `${served.url}/edrop.txt`,
      INTEL_BLOCKLIST_OPENPHISH_URL: `${served.url}/feed.txt`,
    }),
    close: served.close,
  };
}
