/** Serves an HTTP server on a free loopback port; `close` also ends kept-alive and hanging connections. */
import type http from "node:http";
import type { AddressInfo } from "node:net";

export async function serveOnLoopback(server: http.Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
