/**
 * One hostile shape of the soak, and how it is sent: a multipart request whose answer is read as
 * one word (its outcome), built once before the clock starts.
 */
import { type MultipartBody, multipartBody } from "../helpers/multipart-body.ts";
import type { AddressedClient } from "./yara-clients.ts";

/** Where a shape is sent: the service, and a client with its own remote address. */
export interface Target {
  url: string;
  client: AddressedClient;
}

export interface Shape {
  /** yara, image, extract, executable, archive-keys, body, upload… */
  kind: string;
  name: string;
  /** Outcomes that are right (`400:<code>`, `200:<error_short>`, `200:ok`, `200:partial`, `200:png`…). */
  accept: string[];
  /** Builds the payload (once). */
  prepare(): Promise<void>;
  /** Sends the shape once; resolves with its outcome. `signal` abandons it mid-flight. */
  send(target: Target, signal: AbortSignal): Promise<string>;
  /** Whether the soak may abandon it mid-flight (a multipart request; the cut uploads do their own). */
  abandonable: boolean;
}

export interface Payload {
  bytes: Uint8Array | string;
  filename: string;
  fields?: Record<string, string>;
  query?: string;
}

type Json = Record<string, unknown>;

/**
 * What an answer says, in one word: `400:<code>` for a refusal; for a 200, `png` for an image,
 * else the processor's entry (`ok`, `partial` when it says it stopped, or its `error_short`).
 */
export async function outcomeOf(res: Response, processor?: string): Promise<string> {
  if (res.status === 200 && res.headers.get("content-type") === "image/png") {
    await res.arrayBuffer();
    return "200:png";
  }
  const body = (await res.json().catch(() => ({}))) as Json;
  if (res.status !== 200) return `${res.status}:${body.code ?? "no-code"}`;
  const entry = (body.processors as Record<string, Json> | undefined)?.[processor ?? ""];
  if (!entry) return "200";
  if (!entry.success) return `200:${entry.error_short}`;
  const extra = (entry.analysis as Json | undefined)?.extra as Json | undefined;
  return (extra?.loupe as Json | undefined)?.truncated ? "200:partial" : "200:ok";
}

interface MultipartShape {
  kind: string;
  name: string;
  route: string;
  /** The processor whose entry is the outcome (none for `/analyzer/all` and the converter). */
  processor?: string;
  accept: string[];
  build: () => Payload | Promise<Payload>;
  /** Reads the answer (defaults to outcomeOf). */
  read?: (res: Response) => Promise<string>;
}

/** A shape sent as one multipart request, its body built once. */
export function multipart(s: MultipartShape): Shape {
  let prepared: { path: string; upload: MultipartBody } | undefined;
  const prepare = async () => {
    if (prepared) return prepared;
    const p = await s.build();
    const upload = multipartBody(Buffer.from(p.bytes), p.filename, p.fields ?? {});
    prepared = { path: `${s.route}${p.query ? `?${p.query}` : ""}`, upload };
    return prepared;
  };
  return {
    kind: s.kind,
    name: s.name,
    accept: s.accept,
    abandonable: true,
    async prepare() {
      await prepare();
    },
    async send({ url, client }, signal) {
      const { path, upload } = await prepare();
      const res = await client.sendPrepared(`${url}${path}`, upload, signal);
      return s.read ? s.read(res) : outcomeOf(res, s.processor);
    },
  };
}

/** The limits the soak's files process runs with, which some shapes go one past. */
export interface SoakLimits {
  maxFileSize: number;
  maxFieldSize: number;
  /** How long the service keeps a body that stopped sending (HTTP_BODY_IDLE_TIMEOUT_MS). */
  bodyIdleMs: number;
}
