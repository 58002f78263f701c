/**
 * A loopback VirusTotal (its paths, key header and answers) that counts calls: when each arrived
 * and with which key. It refuses keys it was not given (401) and can answer 429 with Retry-After.
 */
import http from "node:http";
import { fixture } from "./connectors.ts";
import { serveOnLoopback } from "./loopback.ts";

export interface CountingVendor {
  url: string;
  /** Every call: when it arrived (ms since the epoch) and the key it carried. */
  calls: { at: number; key: string }[];
  /** Answer the next calls 429 with this Retry-After (seconds), while `throttled` > 0. */
  retryAfter: string;
  throttled: number;
  close(): Promise<void>;
}

export async function startCountingVendor(validKeys: string[]): Promise<CountingVendor> {
  const state: CountingVendor = { url: "", calls: [], retryAfter: "1", throttled: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const key = String(req.headers["x-apikey"] ?? "");
    state.calls.push({ at: Date.now(), key });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (!validKeys.includes(key)) return send(401, fixture("virustotal", "wrong_credentials"));
    if (state.throttled > 0) {
      state.throttled--;
      return send(
        429,
        { error: { code: "TooManyRequestsError", message: "slow down" } },
        { "retry-after": state.retryAfter },
      );
    }
    return send(404, fixture("virustotal", "not_found"));
  });
  Object.assign(state, await serveOnLoopback(server));
  return state;
}
