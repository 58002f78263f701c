/**
 * Optional Apache Tika backend (`FILES_TIKA_URL`): files Loupe cannot read itself (those that would end
 * as printable strings) are PUT to Tika's `/rmeta/text`, which answers a JSON array of metadata
 * objects — the file's first, then one per embedded document — each with its text in
 * `X-TIKA:content`. A failure or a timeout keeps the native strings result and says why.
 */
import { type Extracted, isoDate, snakeCase, type TikaOptions } from "../result.ts";

type TikaMetadata = Record<string, string | string[] | number | undefined>;

const CONTENT = "X-TIKA:content";

const one = (v: TikaMetadata[string]): string | undefined =>
  Array.isArray(v) ? v[0] : v === undefined ? undefined : String(v);

/** Asks Tika; answers the strings result unchanged (with `extra.loupe.tika_error`) when it cannot. */
export async function withTika(
  bytes: Buffer,
  type: string,
  opts: TikaOptions | undefined,
  strings: () => Extracted,
): Promise<Extracted & { type: string }> {
  if (!opts) return { type, ...strings() };
  let answer: TikaMetadata[];
  try {
    answer = await askTika(bytes, opts);
  } catch (err) {
    const fallback = strings();
    const e = err as Error;
    const reason = e.name === "TimeoutError" ? `timeout after ${opts.timeoutMs} ms` : e.message;
    fallback.extra.loupe = { ...(fallback.extra.loupe ?? {}), tika: "failed", tika_error: reason };
    return { type, ...fallback };
  }
  const [main = {}, ...embedded] = answer;
  const texts = [one(main[CONTENT]) ?? ""];
  for (const e of embedded) {
    const text = one(e[CONTENT])?.trim();
    const where = one(e["X-TIKA:embedded_resource_path"]) ?? one(e.resourceName) ?? "embedded";
    if (text) texts.push(`── ${where.replace(/^\//, "")} ──\n${text}`);
  }
  const tika: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(main)) {
    if (k === CONTENT || v === undefined) continue;
    tika[snakeCase(k)] = v;
  }
  if (embedded.length) tika.embedded_count = embedded.length;
  const tikaType = one(main["Content-Type"])?.split(";")[0]?.trim();
  const title = one(main["dc:title"]) ?? one(main.title) ?? null;
  return {
    type: tikaType && tikaType !== "application/octet-stream" ? tikaType : type,
    text: texts.filter(Boolean).join("\n\n"),
    title,
    created: isoDate(one(main["dcterms:created"]) ?? one(main["meta:creation-date"])),
    extra: { tika, loupe: { tika: "true" } },
  };
}

async function askTika(bytes: Buffer, opts: TikaOptions): Promise<TikaMetadata[]> {
  const url = `${opts.url.replace(/\/+$/, "")}/rmeta/text`;
  const res = await fetch(url, {
    method: "PUT",
    body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    headers: { accept: "application/json", "content-type": "application/octet-stream" },
    signal: AbortSignal.timeout(opts.timeoutMs),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`Tika answered HTTP ${res.status}`);
  }
  const body = (await res.json().catch(() => undefined)) as unknown;
  if (!Array.isArray(body) || !body.every((m) => m && typeof m === "object" && !Array.isArray(m)))
    throw new Error("Tika's answer is not a JSON array of metadata objects");
  return body as TikaMetadata[];
}
