/**
 * Hostile requests for the files service: malformed multipart bodies, wrong content types,
 * duplicated and enormous fields, random and damaged files under misleading names, pixel bombs,
 * nasty YARA sources and query strings. Used by the short fuzz test and `./loupe bench fuzz`.
 */
import fc from "fast-check";
import sharp from "sharp";
import { request } from "undici";
import type { ThumbnailInput } from "../../src/files/converters/thumbnail-inputs.ts";
import { buildApk } from "./apk.ts";
import { bmp24, pngBombHeader } from "./images.ts";
import { buildMsg } from "./msg.ts";

/** A 138-byte 7z written by 7zz (one file, "café report"), kept inline so seeding needs no tool. */
const TINY_7Z =
  "N3q8ryccAASBeNZOEAAAAAAAAABaAAAAAAAAAF5we/kBAAtjYWbDqSByZXBvcnQAAQQGAAEJEAAHCwEAASEhAQAMDAAICgHJaaLnAAAFARkMAAAAAAAAAAAAAAAAERMAbgBvAHQAZQAuAHQAeAB0AAAAGQAUCgEALJJDpDt73QEVBgEAIICkgQAA";

export interface HostileRequest {
  kind: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export const ANALYZERS = ["/analyzer/extractor", "/analyzer/antivirus", "/analyzer/rulematch"];
export const ENDPOINTS = [...ANALYZERS, "/converter/thumbnail"];

const NAMES = [
  "a.png",
  "b.jpg",
  "c.pdf",
  "d.docx",
  "e.zip",
  "f.exe",
  "g.eml",
  "h.svg",
  "i.bmp",
  "j.tar.gz",
  "k",
];
const RULES = 'rule r { strings: $a = "MZ" condition: $a }';

/** Valid files to damage: every image format the thumbnailer reads, and a few document shapes. */
export async function seedFiles(): Promise<Buffer[]> {
  const img = () => sharp({ create: { width: 37, height: 23, channels: 4, background: "#36c8" } });
  // One seed per thumbnail input format (a row of THUMBNAIL_INPUTS without one does not type-check).
  const images: Record<ThumbnailInput, Buffer> = {
    PNG: await img().png().toBuffer(),
    JPEG: await img().jpeg().toBuffer(),
    GIF: await img().gif().toBuffer(),
    WebP: await img().webp().toBuffer(),
    TIFF: await img().tiff().toBuffer(),
    "AVIF/HEIF": await img().avif().toBuffer(),
    BMP: bmp24(17, 9, [10, 200, 30]),
    SVG: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><circle r="4" cx="4" cy="4"/></svg>',
    ),
  };
  return [
    ...Object.values(images),
    Buffer.from(
      "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
    ),
    Buffer.from("From: a@example.org\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nbody\r\n"),
    Buffer.from("PK\u0003\u0004broken zip"),
    pngBombHeader(70_000, 70_000),
    Buffer.from(
      "{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0 Arial;}}{\\info{\\title t}}\\f0 caf\\'e9 \\u8364? {\\*\\x y}\\par}",
    ),
    buildMsg({
      subject: "hi",
      senderName: "a",
      senderEmail: "a@example.org",
      recipients: [{ name: "b", email: "b@example.org", kind: "to" }],
      body: "body",
      sent: new Date(0),
      attachments: [{ fileName: "a.txt", mimeType: "text/plain", content: Buffer.from("attached") }],
    }),
    buildApk(
      {
        name: "manifest",
        attributes: { package: "a.b", "android:versionCode": 1 },
        children: [
          { name: "uses-permission", attributes: { "android:name": "android.permission.INTERNET" } },
        ],
      },
      { utf8: true },
    ),
    Buffer.from(TINY_7Z, "base64"),
  ];
}

export function multipart(
  parts: Array<{ name: string; filename?: string; value: Buffer | string; type?: string }>,
  boundary = "hostileBoundary7MA4YWxk",
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}`;
    const type = p.type ? `\r\nContent-Type: ${p.type}` : "";
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`, "binary"));
    chunks.push(typeof p.value === "string" ? Buffer.from(p.value) : p.value);
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function damage(seed: Buffer, how: "truncate" | "flip" | "both", at: number, bits: number[]): Buffer {
  const copy = Buffer.from(seed);
  if (how !== "truncate") {
    for (const b of bits) {
      const i = b % Math.max(1, copy.length);
      copy[i] = (copy[i] ?? 0) ^ (1 << (b % 8));
    }
  }
  return how === "flip" ? copy : copy.subarray(0, at % Math.max(1, copy.length));
}

/** A fast-check arbitrary of hostile requests built around the given seed files. */
export function hostileRequest(seeds: Buffer[], fieldLimit: number): fc.Arbitrary<HostileRequest> {
  const endpoint = fc.constantFrom(...ENDPOINTS);
  const name = fc.oneof(
    fc.constantFrom(...NAMES),
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.constant("\u0000nul\u0000.png"),
    fc.constant("../../../../etc/passwd"),
    fc.constant("名前\u202e.jpg"),
  );
  const file = fc.oneof(
    fc.uint8Array({ maxLength: 4096 }).map((a) => Buffer.from(a)),
    fc
      .tuple(
        fc.nat(seeds.length - 1),
        fc.constantFrom("truncate", "flip", "both") as fc.Arbitrary<"truncate" | "flip" | "both">,
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 16 }),
      )
      .map(([i, how, at, bits]) => damage(seeds[i]!, how, at, bits)),
    fc.nat(seeds.length - 1).map((i) => seeds[i]!),
  );
  const rules = fc.oneof(
    fc.constant(RULES),
    fc.constant(""),
    fc.constant("   \n\t "),
    fc.string({ maxLength: 500 }),
    fc.constant(`rule deep { condition: ${"(".repeat(2000)}true${")".repeat(2000)} }`),
    fc.constant("rule slow { strings: $r = /(a+)+(b+)+(c+)+$/ condition: $r }"),
    fc.constant(
      `rule big { strings: ${Array.from({ length: 300 }, (_, i) => `$s${i} = "x${i}"`).join(" ")} condition: any of them }`,
    ),
    fc.constant("rule x { condition: true"),
  );
  const query = fc.oneof(
    fc.constant(""),
    fc.constant("?width=300&height=200"),
    fc.constant("?width=-1"),
    fc.constant("?width=99999999999999999999&height=1"),
    fc.constant("?strategy=%00&color=%ZZ"),
    fc.constant("?color=rgba(999,999,999,9)&strategy=cover&width=10000&height=10000"),
    fc.string({ maxLength: 80 }).map((s) => `?${encodeURIComponent(s)}=${encodeURIComponent(s)}`),
  );
  const wellFormed = fc
    .record({
      endpoint,
      query,
      name,
      file,
      rules,
      type: fc.constantFrom(undefined, "image/png", "application/pdf", "\u0000/\u0000"),
    })
    .map(({ endpoint, query, name, file, rules, type }) => {
      const parts = [{ name: "file", filename: name, value: file, type }];
      const withRules =
        endpoint === "/analyzer/rulematch" ? [{ name: "rules", value: rules }, ...parts] : parts;
      const { body, contentType } = multipart(withRules);
      return { kind: "file", path: endpoint + query, headers: { "content-type": contentType }, body };
    });
  const truncated = fc.record({ endpoint, file, cut: fc.nat() }).map(({ endpoint, file, cut }) => {
    const { body, contentType } = multipart([
      { name: "rules", value: RULES },
      { name: "file", filename: "t.bin", value: file },
    ]);
    return {
      kind: "truncated-multipart",
      path: endpoint,
      headers: { "content-type": contentType },
      body: body.subarray(0, cut % body.length),
    };
  });
  const wrongType = fc
    .record({
      endpoint,
      type: fc.constantFrom(
        "text/plain",
        "application/json",
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/mixed; boundary=x",
        "application/x-www-form-urlencoded",
        "image/png",
      ),
      body: fc.uint8Array({ maxLength: 2048 }),
    })
    .map(({ endpoint, type, body }) => ({
      kind: "wrong-content-type",
      path: endpoint,
      headers: { "content-type": type },
      body: Buffer.from(body),
    }));
  const duplicated = fc.record({ endpoint, file }).map(({ endpoint, file }) => {
    const { body, contentType } = multipart([
      { name: "rules", value: RULES },
      { name: "rules", value: RULES },
      { name: "file", filename: "a", value: file },
      { name: "file", filename: "b", value: file },
    ]);
    return { kind: "duplicated-fields", path: endpoint, headers: { "content-type": contentType }, body };
  });
  const enormous = fc
    .record({ endpoint, which: fc.constantFrom("name", "value") })
    .map(({ endpoint, which }) => {
      const big = "N".repeat(which === "name" ? 20_000 : fieldLimit + 10);
      const parts = which === "name" ? [{ name: big, value: "v" }] : [{ name: "rules", value: big }];
      const { body, contentType } = multipart([
        ...parts,
        { name: "file", filename: "a.txt", value: "hello" },
      ]);
      return {
        kind: `enormous-field-${which}`,
        path: endpoint,
        headers: { "content-type": contentType },
        body,
      };
    });
  return fc.oneof(
    { arbitrary: wellFormed, weight: 6 },
    { arbitrary: truncated, weight: 2 },
    { arbitrary: wrongType, weight: 1 },
    { arbitrary: duplicated, weight: 1 },
    { arbitrary: enormous, weight: 1 },
  );
}

/** Longest any hostile request may take to be answered. */
export const ANSWER_WITHIN_MS = 30_000;

export async function sendHostile(
  url: string,
  r: HostileRequest,
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const res = await request(url + r.path, {
    method: "POST",
    headers: r.headers,
    body: r.body,
    headersTimeout: ANSWER_WITHIN_MS,
    bodyTimeout: ANSWER_WITHIN_MS,
  });
  const body = await res.body.text();
  return { status: res.statusCode, body, ms: performance.now() - started };
}

/** What is wrong with an answer to a hostile request, or null when it is acceptable. */
export function judgeAnswer(
  r: HostileRequest,
  a: { status: number; body: string; ms: number },
): string | null {
  if (a.ms >= ANSWER_WITHIN_MS) return `${r.kind} on ${r.path} took ${Math.round(a.ms)} ms`;
  if (a.status >= 500) return `${r.kind} on ${r.path} → ${a.status}: ${a.body.slice(0, 300)}`;
  if (a.status >= 400 && !/^[a-z_]+$/.test(safeCode(a.body) ?? "")) {
    return `${r.kind} on ${r.path} → ${a.status} without the {detail, code} error model: ${a.body.slice(0, 200)}`;
  }
  return null;
}

function safeCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; detail?: unknown };
    return typeof parsed.code === "string" && typeof parsed.detail === "string" ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}
