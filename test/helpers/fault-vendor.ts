/**
 * A vendor on loopback that misbehaves on purpose around a healthy answer given per path: it
 * answers 500, answers too late, never answers, answers garbage, rate-limits (429 with
 * Retry-After), or flaps between healthy and failing periods. Calls are counted per path, so a
 * test can tell how often each subject was asked.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { fixture } from "./connectors.ts";
import type { FakeAnswer } from "./fake-vendor.ts";
import { vtFixture } from "./fake-virustotal.ts";
import { serveOnLoopback } from "./loopback.ts";

export type Fault = "none" | "error" | "slow" | "hang" | "garbage" | "rate_limit" | "flap";

export const FAULTS: Fault[] = ["error", "slow", "hang", "garbage", "rate_limit", "flap"];

export interface FaultOptions {
  /** The healthy answer for a path (404 when undefined). */
  healthy(path: string): FakeAnswer | undefined;
  fault?: Fault;
  /** `slow`: answer after this many ms (default 5000). */
  slowMs?: number;
  /** `rate_limit`: calls allowed per second before 429 (default 5). */
  ratePerSecond?: number;
  /** `rate_limit`: the Retry-After sent with 429 (default 1). */
  retryAfterSeconds?: number;
  /** `flap`: length of each healthy and each failing period in ms (default 400). */
  flapMs?: number;
  /** Delay before every healthy answer (keeps requests in flight). */
  delayMs?: number;
}

export interface FaultVendor {
  url: string;
  /** Can be changed while running. */
  fault: Fault;
  delayMs: number;
  /** Calls per path (query included). */
  calls: Map<string, number>;
  /** Answers sent, by kind: "200", "404", "500", "503", "429", "garbage", "slow", "hang". */
  answers: Map<string, number>;
  close(): Promise<void>;
}

/** Bodies a broken proxy or a confused vendor sends with a 200. */
const GARBAGE = [
  "<html><body>502 Bad Gateway</body></html>",
  '{"MD5": "A7C0E2D4B9F3C1E8',
  "[1, 2, 3]",
  '{"MD5": {"nested": true}, "SHA-1": 42, "parents": "none"}',
  "\u0000\u0001\u0002binary\uFFFD",
  '"just a string"',
  "",
];

export async function startFaultVendor(opts: FaultOptions): Promise<FaultVendor> {
  const state: FaultVendor = {
    url: "",
    fault: opts.fault ?? "none",
    delayMs: opts.delayMs ?? 0,
    calls: new Map(),
    answers: new Map(),
    close: async () => {},
  };
  const flapMs = opts.flapMs ?? 400;
  const started = Date.now();
  const rate = { second: 0, used: 0 };
  let garbageTurn = 0;
  const count = (kind: string) => state.answers.set(kind, (state.answers.get(kind) ?? 0) + 1);

  const server = http.createServer((req, res) => {
    req.resume();
    const path = req.url ?? "";
    state.calls.set(path, (state.calls.get(path) ?? 0) + 1);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(body);
    };
    const healthy = () => {
      const answer = opts.healthy(path);
      const status = answer ? (answer.status ?? 200) : 404;
      const t = setTimeout(() => {
        count(String(status));
        send(status, JSON.stringify(answer ? answer.body : { message: "not found" }));
      }, state.delayMs);
      res.once("close", () => clearTimeout(t));
    };
    switch (state.fault) {
      case "none":
        return healthy();
      case "error":
        count("500");
        return send(500, JSON.stringify({ error: "internal server error" }));
      case "slow": {
        count("slow");
        const t = setTimeout(
          () => send(200, JSON.stringify(opts.healthy(path)?.body ?? {})),
          opts.slowMs ?? 5000,
        );
        res.once("close", () => clearTimeout(t));
        return;
      }
      case "hang":
        count("hang");
        return; // the socket stays open until the client gives up or the server closes
      case "garbage":
        count("garbage");
        return send(200, GARBAGE[garbageTurn++ % GARBAGE.length]!);
      case "rate_limit": {
        const second = Math.floor(Date.now() / 1000);
        if (second !== rate.second) Object.assign(rate, { second, used: 0 });
        if (++rate.used <= (opts.ratePerSecond ?? 5)) return healthy();
        count("429");
        return send(429, JSON.stringify({ message: "rate limit exceeded" }), {
          "retry-after": String(opts.retryAfterSeconds ?? 1),
        });
      }
      case "flap": {
        const failing = Math.floor((Date.now() - started) / flapMs) % 2 === 1;
        if (!failing) return healthy();
        count("503");
        return send(503, JSON.stringify({ error: "service unavailable" }));
      }
    }
  });
  Object.assign(state, await serveOnLoopback(server));
  return state;
}

const digest = (algorithm: string, s: string) => createHash(algorithm).update(s).digest("hex");

/** `count` distinct MD5 subjects (`salt` keeps runs apart). */
export function fileSubjects(count: number, salt = ""): string[] {
  return Array.from({ length: count }, (_, i) => digest("md5", `loupe-fault-${salt}-${i}`));
}

const vtFile = vtFixture("file") as { data: { id: string; attributes: Record<string, unknown> } };

/**
 * VirusTotal's answer for any MD5 subject: the recorded file object with that file's hashes (the
 * SHA-1 and SHA-256 derive from the MD5, so CIRCL below names the same SHA-1).
 */
export function virusTotalAnswer(path: string): FakeAnswer | undefined {
  const md5 = /^\/api\/v3\/files\/([0-9a-f]{32})$/.exec(path)?.[1];
  if (!md5) return undefined;
  const sha256 = digest("sha256", md5);
  return {
    body: {
      data: {
        ...vtFile.data,
        id: sha256,
        attributes: { ...vtFile.data.attributes, md5, sha1: digest("sha1", md5), sha256 },
      },
    },
  };
}

const circlFound = fixture("hashlookup", "found") as Record<string, unknown>;

/** CIRCL hashlookup's answer for any MD5 subject (upper-case hashes, as CIRCL sends them). */
export function hashlookupAnswer(path: string): FakeAnswer | undefined {
  const md5 = /^\/lookup\/md5\/([0-9a-f]{32})$/.exec(path)?.[1];
  if (!md5) return undefined;
  return {
    body: {
      ...circlFound,
      MD5: md5.toUpperCase(),
      "SHA-1": digest("sha1", md5).toUpperCase(),
      "SHA-256": digest("sha256", md5).toUpperCase(),
    },
  };
}
