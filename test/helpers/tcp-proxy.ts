/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL): `outage` cuts every connection
 * and refuses new ones for a while, which is what clients see of a database restart — without
 * restarting a server other tests share.
 */
import net from "node:net";

export interface TcpProxy {
  port: number;
  /** Starts listening (again), on the same port. */
  open(): Promise<void>;
  /** Drops every connection and refuses new ones for `ms`. */
  outage(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  opts: { port?: number; listen?: boolean } = {},
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = opts.port ?? 0;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const listening = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.once("close", () => upstream.destroy());
        upstream.once("close", () => client.destroy());
      });
      server = listening;
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", () => {
        port = (listening.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  if (opts.listen !== false) await open();
  else if (!port) {
    // Reserve a port to announce before listening.
    await open();
    await shut();
  }
  return {
    get port() {
      return port;
    },
    open,
    async outage(ms) {
      await shut();
      await new Promise((r) => setTimeout(r, ms));
      await open();
    },
    close: shut,
  };
}
