// Container health check (no curl in the image): `health.mjs http://127.0.0.1:8000/` passes on a
// 2xx answer; `health.mjs clamd 3310` on clamd's PONG. Exit 0 healthy, 1 not; 5 s at most.
import net from "node:net";

const [target = "", port = "3310"] = process.argv.slice(2);
setTimeout(() => process.exit(1), 5000).unref();
if (target === "clamd") {
  const conn = net.connect(Number(port), "127.0.0.1", () => conn.end("zPING\0"));
  conn.on("data", (d) => process.exit(String(d).includes("PONG") ? 0 : 1));
  conn.on("error", () => process.exit(1));
} else {
  fetch(target).then(
    (r) => process.exit(r.ok ? 0 : 1),
    () => process.exit(1),
  );
}
