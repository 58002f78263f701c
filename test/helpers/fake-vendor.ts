/** A small fake vendor on loopback: answers recorded bodies by exact path (404 otherwise) and records calls. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRoutes {
  [pathAndQuery: string]: { status?: number; body: unknown };
}

export interface SimpleFake {
  url: string;
  calls: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export async function startFakeVendor(
  routes: FakeRoutes,
  notFoundBody: unknown = { message: "not found" },
): Promise<SimpleFake> {
  const calls: SimpleFake["calls"] = [];
  const server = http.createServer((req, res) => {
    calls.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const route = routes[req.url ?? ""];
    res.writeHead(route?.status ?? (route ? 200 : 404), { "content-type": "application/json" });
    res.end(JSON.stringify(route ? route.body : notFoundBody));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
