/**
 * The public blocklists Loupe keeps local copies of, and how each file is read: the Tor exit list
 * and OpenPhish's community feed (one value a line), Feodo Tracker's and SSLBL's CSV (csv-parse),
 * Spamhaus DROP and EDROP (`CIDR ; SBL id`). A line that is not what its list holds is skipped.
 */
import { parse as parseCsv } from "csv-parse/sync";
import { type FeedEntry, ipv4Number, ipv4Range, MAX_FEED_VALUE } from "../feed.ts";

export interface Blocklist {
  /** The feed id (its copy's key) and the setting naming its URL. */
  id: string;
  name: string;
  /** What a listing means, for the graph (`tor_exit`, `botnet_c2`, `phishing`, `drop`). */
  meaning: "tor_exit" | "botnet_c2" | "phishing" | "drop";
  defaultUrl: string;
  /** The page to credit and read the terms of use. */
  home: string;
  parse(text: string): FeedEntry[];
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#") && !l.startsWith(";"));

const csvRows = (text: string): string[][] =>
  parseCsv(text, {
    comment: "#",
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
  });

const ip = (value: string): FeedEntry | undefined => {
  if (ipv4Number(value) !== undefined) return { kind: "IPV4", value, info: {} };
  return undefined;
};

function torExits(text: string): FeedEntry[] {
  return lines(text).flatMap((l) => ip(l) ?? []);
}

/** Feodo Tracker: `"first_seen_utc","dst_ip","dst_port","c2_status","last_online","malware"`. */
function feodo(text: string): FeedEntry[] {
  return csvRows(text).flatMap(([firstSeen, dstIp, port, status, lastOnline, malware]) => {
    const entry = ip(dstIp ?? "");
    if (!entry) return [];
    return [{ ...entry, info: { first_seen: firstSeen, port, status, last_online: lastOnline, malware } }];
  });
}

/** SSLBL's botnet C2 IP list: `Firstseen,DstIP,DstPort`. */
function sslbl(text: string): FeedEntry[] {
  return csvRows(text).flatMap(([firstSeen, dstIp, port]) => {
    const entry = ip(dstIp ?? "");
    return entry ? [{ ...entry, info: { first_seen: firstSeen, port } }] : [];
  });
}

/** Spamhaus DROP / EDROP text: `1.10.16.0/20 ; SBL256894`. */
function drop(text: string): FeedEntry[] {
  return lines(text).flatMap((l) => {
    const [cidr, sbl] = l.split(";").map((p) => p.trim());
    const range = ipv4Range(cidr ?? "");
    return range ? [{ kind: "CIDR", value: cidr!, ...range, info: { sbl: sbl ?? "" } }] : [];
  });
}

/** OpenPhish: one URL a line. */
function openphish(text: string): FeedEntry[] {
  return lines(text)
    .filter((l) => /^https?:\/\/\S+$/i.test(l) && l.length <= MAX_FEED_VALUE)
    .map((value) => ({ kind: "URL", value, info: {} }));
}

export const BLOCKLISTS: Blocklist[] = [
  {
    id: "tor-exits",
    name: "Tor exit nodes",
    meaning: "tor_exit",
    defaultUrl: "https://check.torproject.org/torbulkexitlist",
    home: "https://check.torproject.org/",
    parse: torExits,
  },
  {
    id: "feodo",
    name: "Feodo Tracker botnet C2 (abuse.ch)",
    meaning: "botnet_c2",
    defaultUrl: "https://feodotracker.abuse.ch/downloads/ipblocklist.csv",
    home: "https://feodotracker.abuse.ch/blocklist/",
    parse: feodo,
  },
  {
    id: "sslbl",
    name: "SSLBL botnet C2 IPs (abuse.ch)",
    meaning: "botnet_c2",
    defaultUrl: "https://sslbl.abuse.ch/blacklist/sslipblacklist.csv",
    home: "https://sslbl.abuse.ch/blacklist/",
    parse: sslbl,
  },
  {
    id: "spamhaus-drop",
    name: "Spamhaus DROP",
    meaning: "drop",
    defaultUrl: "https://www.spamhaus.org/drop/drop.txt",
    home: "https://www.spamhaus.org/drop/",
    parse: drop,
  },
  {
    id: "spamhaus-edrop",
    name: "Spamhaus EDROP",
    meaning: "drop",
    defaultUrl: "https://www.spamhaus.org/drop/edrop.txt",
    home: "https://www.spamhaus.org/drop/",
    parse: drop,
  },
  {
    id: "openphish",
    name: "OpenPhish community feed",
    meaning: "phishing",
    defaultUrl: "https://openphish.com/feed.txt",
    home: "https://openphish.com/",
    parse: openphish,
  },
];
