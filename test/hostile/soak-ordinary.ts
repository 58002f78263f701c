/**
 * The ordinary requests of the soak, each answer checked for its exact content: a small text
 * extraction, a small rule match (one file that matches, one that does not), a thumbnail of a
 * solid image (its size and colour) and an antivirus scan (EICAR found by name, a clean file clean).
 */
import { EICAR } from "../helpers/clamd.ts";
import { BLUE, pixelAt, sizeOf, solid } from "../helpers/images.ts";
import { ORDINARY_FILE, ORDINARY_RULES } from "./yara-cases.ts";
import type { AddressedClient } from "./yara-clients.ts";

export interface OrdinaryKind {
  name: string;
  /** Asks once (the `i`th time); resolves with what was wrong, or null when the answer was right. */
  ask(client: AddressedClient, url: string, i: number, signal: AbortSignal): Promise<string | null>;
}

type Json = Record<string, unknown>;
const entryOf = (body: Json, processor: string) =>
  (body.processors as Record<string, Json> | undefined)?.[processor];
const brief = (v: unknown) => JSON.stringify(v).slice(0, 300);

const extraction: OrdinaryKind = {
  name: "text extraction",
  async ask(client, url, i, signal) {
    const note = `Field note ${i}: the courier meets the handler at dawn.`;
    const res = await client.send(`${url}/analyzer/extractor`, note, "note.txt", {}, signal);
    const body = (await res.json()) as Json;
    if (res.status === 200 && entryOf(body, "extractor")?.success === true && body.content === note)
      return null;
    return `${res.status} ${brief(entryOf(body, "extractor") ?? body)} content ${brief(body.content)}`;
  },
};

const rulematch: OrdinaryKind = {
  name: "rule match",
  async ask(client, url, i, signal) {
    const matches = i % 2 === 0;
    const file = matches ? ORDINARY_FILE : `nothing here ${i}`;
    const res = await client.send(
      `${url}/analyzer/rulematch`,
      file,
      "c.bin",
      { rules: ORDINARY_RULES },
      signal,
    );
    const entry = entryOf((await res.json()) as Json, "rulematch");
    const rules = (
      (entry?.analysis as Json | undefined)?.matches as Array<{ rule: string }> | undefined
    )?.map((m) => m.rule);
    const expected = matches ? ["ordinary"] : [];
    if (res.status === 200 && entry?.success === true && brief(rules) === brief(expected)) return null;
    return `${res.status} ${brief(entry)} (expected matches ${brief(expected)})`;
  },
};

/** A 64×48 blue PNG, made once. */
let bluePng: Buffer | undefined;
const thumbnail: OrdinaryKind = {
  name: "thumbnail",
  async ask(client, url, _i, signal) {
    bluePng ??= await solid(64, 48).png().toBuffer();
    const res = await client.send(
      `${url}/converter/thumbnail?width=32&height=32`,
      bluePng,
      "ok.png",
      {},
      signal,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) return `${res.status} ${bytes.toString("utf8").slice(0, 300)}`;
    const size = await sizeOf(bytes);
    const centre = await pixelAt(bytes, 16, 16);
    const blue = [BLUE.r, BLUE.g, BLUE.b, 255];
    if (size.format === "png" && size.width === 32 && size.height === 32 && brief(centre) === brief(blue))
      return null;
    return `a ${size.width}×${size.height} ${size.format} whose centre is ${brief(centre)}`;
  },
};

const antivirus: OrdinaryKind = {
  name: "antivirus scan",
  async ask(client, url, i, signal) {
    const infected = i % 2 === 0;
    const file = infected ? EICAR : `a clean note, number ${i}`;
    const res = await client.send(`${url}/analyzer/antivirus`, file, "sample.com", {}, signal);
    const entry = entryOf((await res.json()) as Json, "antivirus");
    const analysis = entry?.analysis as Json | undefined;
    const right = infected
      ? analysis?.infected === true && analysis.description === "Loupe.Test.EICAR.UNOFFICIAL"
      : analysis?.infected === false;
    if (res.status === 200 && entry?.success === true && right) return null;
    return `${res.status} ${brief(entry)} (expected ${infected ? "EICAR" : "clean"})`;
  },
};

export const ORDINARY_KINDS: OrdinaryKind[] = [extraction, rulematch, thumbnail, antivirus];
