/**
 * Uploads the report page is tested and measured on, built at run time and analysed by a real
 * files service: a bundle with every kind of node (EICAR, an image, a Windows program, notes with
 * indicators, an archive nobody can open, names with markup and bidi controls), and a tree of
 * about 1,000 nodes (zips of notes inside a zip).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { EICAR } from "./clamd.ts";
import { mingwPe } from "./executables.ts";
import { postFile } from "./files-server.ts";
import { json } from "./json.ts";
import { encryptedZip } from "./sevenzip.ts";
import { storedZip } from "./zip.ts";

export const MARKUP_NAME = '<img src=x onerror="document.title=1">.txt';
/** Reads "invoice‮txt.exe" as "invoiceexe.txt" when the control is obeyed. */
export const BIDI_NAME = "invoice\u202etxt.exe";
export const NOTES =
  "Call home to hxxp://evil-login[.]top/verify?id=1 and 185.165.171[.]105 — the dropper is 275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f\n";
export const RULES = 'rule call_home { strings: $a = "Call home" condition: $a }';

/** Every kind of node in one zip. */
export async function bundle(): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "loupe-report-sample-"));
  try {
    const pe = await readFile(mingwPe(dir));
    const png = await sharp({
      create: { width: 48, height: 32, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer();
    const locked = await encryptedZip(
      { "secret.txt": "x" },
      { password: "nobody-knows-it-91", method: "aes256" },
    );
    return storedZip({
      "photo.png": png,
      "tool.exe": pe,
      "notes.txt": NOTES,
      "locked.zip": locked,
      "eicar.com": EICAR,
      [MARKUP_NAME]: "markup in a name",
      [BIDI_NAME]: "bidi in a name",
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A zip of `groups` zips of `perGroup` notes each: 1 + groups × (1 + perGroup) nodes. */
export function largeTree(groups = 10, perGroup = 99): Buffer {
  const outer: Record<string, Buffer> = {};
  for (let g = 0; g < groups; g++) {
    const inner: Record<string, string> = {};
    for (let i = 0; i < perGroup; i++)
      inner[`note-${g}-${i}.txt`] = `Note ${g}/${i}: beacon to https://c2-${g}-${i}.example-bad.net/gate\n`;
    outer[`group-${g}.zip`] = storedZip(inner);
  }
  return storedZip(outer);
}

/** `/analyzer/all` of a files service on `bytes`, as the report page receives it. */
export async function analyse(
  filesUrl: string,
  bytes: Buffer,
  name: string,
  fields: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await postFile(`${filesUrl}/analyzer/all`, bytes, name, fields);
  if (res.status !== 200) throw new Error(`/analyzer/all answered ${res.status}: ${await res.text()}`);
  return (await json(res)) as Record<string, unknown>;
}
