/**
 * A running service as a subject or an entity name: `ip:port/transport label` (Shodan's banners,
 * ThreatFox's `ip:port` IOCs). IPv6 addresses are bracketed so the port stays unambiguous.
 */
import { isIP } from "node:net";

/** A service's name: `ip:port/transport product version` (an IPv6 address in brackets). */
export function serviceName(ip: string, port: number, transport = "tcp", label = ""): string {
  const host = isIP(ip) === 6 ? `[${ip}]` : ip;
  return `${host}:${port}/${transport}${label ? ` ${label}` : ""}`;
}

/** `ip:port`, `[v6]:port`, optional `/tcp|udp` and a trailing label (Loupe's own names); null otherwise. */
export function parseService(value: string): { ip: string; port: number; transport?: string } | null {
  const m = /^\s*\[?([0-9A-Fa-f:.]+?)\]?:(\d{1,5})(?:\/(tcp|udp))?(?:\s.*)?$/i.exec(value);
  if (!m || !isIP(m[1]!)) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { ip: m[1]!.toLowerCase(), port, ...(m[3] ? { transport: m[3].toLowerCase() } : {}) };
}
