/** A small fake vendor on loopback: answers recorded bodies by exact path (404 otherwise) and records calls. */
import http from "node:http";
import { serveOnLoopback } from "./loopback.ts";

export type FakeAnswer = { status?: number; body: unknown };

export interface FakeRoutes {
  /** A fixed answer, or one computed from the request body (POST APIs). */
  [pathAndQuery: string]: FakeAnswer | ((requestBody: string) => FakeAnswer);
}

export interface SimpleFake {
  url: string;
  calls: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

export async function startFakeVendor(
  routes: FakeRoutes,
  notFoundBody: unknown = { message: "not found" },
): Promise<SimpleFake> {
  const calls: SimpleFake["calls"] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      calls.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const route = routes[req.url ?? ""];
      const answer = typeof route === "function" ? route(body) : route;
      res.writeHead(answer?.status ?? (answer ? 200 : 404), { "content-type": "application/json" });
      res.end(JSON.stringify(answer ? answer.body : notFoundBody));
    });
  });
  return { ...(await serveOnLoopback(server)), calls };
}
