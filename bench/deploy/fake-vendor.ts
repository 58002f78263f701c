/**
 * The fake VirusTotal of the compose stack's `test` profile: Loupe's test fake, listening on every
 * interface of its container so the workers reach it as http://fake-vendor:7101. It answers the
 * connector's recorded file, domain and IP objects; FAKE_VENDOR_DELAY_MS holds every answer back
 * (so a lookup is still running when the bench kills its worker). Stops on SIGTERM.
 */
import http from "node:http";
import { virusTotalHandler, vtFixture } from "../../test/helpers/fake-virustotal.ts";

export const EICAR_MD5 = "44d88612fea8a8f36de82e1278abb02f";

const state = {
  calls: [] as string[],
  delayMs: Number(process.env.FAKE_VENDOR_DELAY_MS ?? 0),
  failWith: null,
  garbage: null,
};
const server = http.createServer(
  virusTotalHandler(
    {
      [`files/${EICAR_MD5}`]: vtFixture("file"),
      "domains/example.org": vtFixture("domain"),
      "ip_addresses/192.0.2.10": vtFixture("ip"),
    },
    state,
  ),
);
server.on("request", (req) =>
  process.stdout.write(`${JSON.stringify({ msg: "fake vendor call", url: req.url })}\n`),
);
server.listen(Number(process.env.FAKE_VENDOR_PORT ?? 7101), "0.0.0.0");
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
