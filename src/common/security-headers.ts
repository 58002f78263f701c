/**
 * Helmet's security headers (CSP, frame, referrer, sniffing…), worked out once at start and set on
 * every response. Our policy has no per-request parts (no nonces, no per-route options), while
 * @fastify/helmet rebuilt the whole middleware — parsing the CSP directives — on every request:
 * 11 % of the intel server's busy CPU in a profile under `bench intel`'s load (docs/benchmarks.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import helmet, { type HelmetOptions } from "helmet";

export type SecurityHeaders = ReadonlyArray<readonly [name: string, value: string]>;

/** The headers helmet sets with these options, read by running it once against a recording response. */
export function securityHeaders(options: Readonly<HelmetOptions>): SecurityHeaders {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(", ") : String(value));
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    finished = true;
  });
  // A directive given as a function would need the request: this policy must stay static.
  if (!finished) throw new Error("helmet did not finish synchronously: the security headers are not static");
  return [...headers];
}
