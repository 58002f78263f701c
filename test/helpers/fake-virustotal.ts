import http from "node:http";
import { fixture } from "./connectors.ts";
import { serveOnLoopback } from "./loopback.ts";

export const vtFixture = (name: string): unknown => fixture("virustotal", name);

export interface FakeVendor {
  url: string;
  calls: string[];
  /** Delay every answer by this many ms. */
  delayMs: number;
  /** Answer this status (with the vendor's error body) instead of data. */
  failWith: number | null;
  /** Replace every answer by this raw text. */
  garbage: string | null;
  close(): Promise<void>;
}

export const VT_KEY = "fake-vt-key-0123456789";

export async function startFakeVirusTotal(objects: Record<string, unknown> = {}): Promise<FakeVendor> {
  const state: FakeVendor = {
    url: "",
    calls: [],
    delayMs: 0,
    failWith: null,
    garbage: null,
    close: async () => {},
  };
  const server = http.createServer(virusTotalHandler(objects, state));
  Object.assign(state, await serveOnLoopback(server));
  return state;
}

/** VirusTotal's answers (the connector's recorded ones) for `objects`, by `files/<hash>`, `domains/<name>`… */
export function virusTotalHandler(
  objects: Record<string, unknown>,
  state: Pick<FakeVendor, "calls" | "delayMs" | "failWith" | "garbage">,
): http.RequestListener {
  return (req, res) => {
    state.calls.push(`${req.method} ${req.url}`);
    const send = (status: number, body: unknown) => {
      setTimeout(() => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(typeof body === "string" ? body : JSON.stringify(body));
      }, state.delayMs);
    };
    if (req.headers["x-apikey"] !== VT_KEY) return send(401, vtFixture("wrong_credentials"));
    if (state.garbage !== null) return send(200, state.garbage);
    if (state.failWith === 429) return send(429, vtFixture("quota_exceeded"));
    if (state.failWith !== null)
      return send(state.failWith, { error: { code: "TransientError", message: "failure" } });
    const m = /^\/api\/v3\/(files|domains|ip_addresses|urls)\/([^/?]+)$/.exec(req.url ?? "");
    const found = m ? objects[`${m[1]}/${decodeURIComponent(m[2]!)}`] : undefined;
    if (found) return send(200, found);
    return send(404, vtFixture("not_found"));
  };
}
