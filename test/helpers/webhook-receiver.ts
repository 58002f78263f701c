/** A webhook receiver on loopback: records every call and answers the statuses planned. */
import http from "node:http";
import { serveOnLoopback } from "./loopback.ts";

export interface Receiver {
  url: string;
  calls: Array<{ headers: http.IncomingHttpHeaders; body: string }>;
  /** Statuses to answer, in order; 200 once they run out. "hang" never answers. */
  plan: Array<number | "hang">;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver = { calls: [], plan: [] } as unknown as Receiver;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      receiver.calls.push({ headers: req.headers, body });
      const next = receiver.plan.shift() ?? 200;
      if (next === "hang") return;
      res.writeHead(next).end();
    });
  });
  const served = await serveOnLoopback(server);
  receiver.url = served.url;
  receiver.close = async () => {
    server.closeAllConnections();
    await served.close();
  };
  return receiver;
}
