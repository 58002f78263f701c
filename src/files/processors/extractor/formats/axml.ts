/**
 * Android binary XML (AXML, the compiled AndroidManifest.xml of an APK): chunks of
 * {type u16, header size u16, size u32}. A string pool (UTF-8 or UTF-16), a resource map that
 * names attributes by resource id (release builds often strip their names), and start-element
 * chunks whose attributes carry typed values. Answers a small element tree.
 */
import { ParseFailure } from "../result.ts";

const CHUNK = {
  XML: 0x0003,
  STRING_POOL: 0x0001,
  RESOURCE_MAP: 0x0180,
  START_ELEMENT: 0x0102,
  END_ELEMENT: 0x0103,
} as const;
const UTF8_FLAG = 0x100;
const NO_INDEX = 0xffffffff;

/** android: attribute resource ids, for manifests whose attribute names were stripped. */
const ANDROID_ATTRIBUTES: Record<number, string> = {
  16842755: "name",
  16842753: "label",
  16842754: "icon",
  16842768: "exported",
  16842766: "enabled",
  16843276: "minSdkVersion",
  16843376: "targetSdkVersion",
  16843377: "maxSdkVersion",
  16843291: "versionCode",
  16843292: "versionName",
  16842767: "debuggable",
  16843392: "allowBackup",
  16842788: "value",
  16842758: "permission",
};

export interface XmlElement {
  name: string;
  attributes: Record<string, string | number | boolean>;
  children: XmlElement[];
}

function readStringPool(buf: Buffer, at: number): string[] {
  const count = buf.readUInt32LE(at + 8);
  const flags = buf.readUInt32LE(at + 16);
  const stringsStart = buf.readUInt32LE(at + 20);
  const headerSize = buf.readUInt16LE(at + 2);
  const chunkEnd = at + buf.readUInt32LE(at + 4);
  const utf8 = (flags & UTF8_FLAG) !== 0;
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    let p = at + stringsStart + buf.readUInt32LE(at + headerSize + i * 4);
    if (p >= chunkEnd) throw new ParseFailure("string pool offset out of range");
    if (utf8) {
      // Two lengths (characters, then bytes), each one byte or two with the high bit set.
      p += (buf[p] ?? 0) & 0x80 ? 2 : 1;
      let bytes = buf[p] ?? 0;
      if (bytes & 0x80) {
        bytes = ((bytes & 0x7f) << 8) | (buf[p + 1] ?? 0);
        p += 2;
      } else p += 1;
      strings.push(buf.toString("utf8", p, Math.min(p + bytes, chunkEnd)));
    } else {
      let chars = buf.readUInt16LE(p);
      if (chars & 0x8000) {
        chars = ((chars & 0x7fff) << 16) | buf.readUInt16LE(p + 2);
        p += 4;
      } else p += 2;
      strings.push(buf.toString("utf16le", p, Math.min(p + chars * 2, chunkEnd)));
    }
  }
  return strings;
}

/** A typed attribute value (Res_value): strings, integers, booleans, references. */
function typedValue(dataType: number, data: number, raw: string | undefined): string | number | boolean {
  switch (dataType) {
    case 0x03:
      return raw ?? "";
    case 0x10:
      return data | 0;
    case 0x11:
      return `0x${(data >>> 0).toString(16)}`;
    case 0x12:
      return data !== 0;
    case 0x01:
      return `@0x${(data >>> 0).toString(16).padStart(8, "0")}`;
    case 0x02:
      return `?0x${(data >>> 0).toString(16).padStart(8, "0")}`;
    default:
      return raw ?? data;
  }
}

export function parseAxml(buf: Buffer): XmlElement {
  if (buf.length < 8 || buf.readUInt16LE(0) !== CHUNK.XML)
    throw new ParseFailure("AndroidManifest.xml is not Android binary XML");
  let strings: string[] = [];
  let resourceIds: number[] = [];
  const root: XmlElement = { name: "#document", attributes: {}, children: [] };
  const stack: XmlElement[] = [root];
  let at = buf.readUInt16LE(2);
  const end = Math.min(buf.length, buf.readUInt32LE(4));
  while (at + 8 <= end) {
    const type = buf.readUInt16LE(at);
    const size = buf.readUInt32LE(at + 4);
    if (size < 8 || at + size > end) throw new ParseFailure(`bad chunk size ${size} at ${at}`);
    if (type === CHUNK.STRING_POOL) strings = readStringPool(buf, at);
    else if (type === CHUNK.RESOURCE_MAP) {
      const headerSize = buf.readUInt16LE(at + 2);
      resourceIds = [];
      for (let p = at + headerSize; p + 4 <= at + size; p += 4) resourceIds.push(buf.readUInt32LE(p));
    } else if (type === CHUNK.START_ELEMENT) {
      const ext = at + buf.readUInt16LE(at + 2);
      const name = strings[buf.readUInt32LE(ext + 4)] ?? "";
      const attrStart = buf.readUInt16LE(ext + 8);
      const attrSize = buf.readUInt16LE(ext + 10);
      const attrCount = buf.readUInt16LE(ext + 12);
      const element: XmlElement = { name, attributes: {}, children: [] };
      for (let i = 0; i < attrCount; i++) {
        const a = ext + attrStart + i * attrSize;
        if (a + 20 > at + size) throw new ParseFailure("attribute past the end of its element");
        const nameIndex = buf.readUInt32LE(a + 4);
        const rawIndex = buf.readUInt32LE(a + 8);
        const dataType = buf.readUInt8(a + 15);
        const data = buf.readUInt32LE(a + 16);
        const resId = resourceIds[nameIndex];
        const attrName =
          strings[nameIndex] ||
          (resId !== undefined ? ANDROID_ATTRIBUTES[resId] : undefined) ||
          `attr${nameIndex}`;
        const raw = rawIndex !== NO_INDEX ? strings[rawIndex] : undefined;
        element.attributes[attrName] = typedValue(dataType, data, dataType === 0x03 ? strings[data] : raw);
      }
      stack.at(-1)?.children.push(element);
      stack.push(element);
    } else if (type === CHUNK.END_ELEMENT) {
      if (stack.length > 1) stack.pop();
    }
    at += size;
  }
  const manifest = root.children[0];
  if (!manifest) throw new ParseFailure("AndroidManifest.xml has no element");
  return manifest;
}

export interface ApkManifest {
  package?: string;
  version_code?: number | string;
  version_name?: string;
  min_sdk?: number | string;
  target_sdk?: number | string;
  permissions: string[];
  activities: string[];
  services: string[];
  receivers: string[];
  providers: string[];
}

const named = (parent: XmlElement | undefined, tag: string) =>
  (parent?.children ?? [])
    .filter((c) => c.name === tag)
    .map((c) => String(c.attributes.name ?? ""))
    .filter(Boolean);

/** The manifest facts investigators ask about: identity, versions, permissions, components. */
export function readApkManifest(bytes: Buffer): ApkManifest {
  const manifest = parseAxml(bytes);
  if (manifest.name !== "manifest")
    throw new ParseFailure(`the root element is <${manifest.name}>, not <manifest>`);
  const sdk = manifest.children.find((c) => c.name === "uses-sdk");
  const application = manifest.children.find((c) => c.name === "application");
  const out: ApkManifest = {
    package: manifest.attributes.package as string | undefined,
    version_code: manifest.attributes.versionCode as number | undefined,
    version_name: manifest.attributes.versionName as string | undefined,
    min_sdk: sdk?.attributes.minSdkVersion as number | undefined,
    target_sdk: sdk?.attributes.targetSdkVersion as number | undefined,
    permissions: [...named(manifest, "uses-permission"), ...named(manifest, "uses-permission-sdk-23")],
    activities: [...named(application, "activity"), ...named(application, "activity-alias")],
    services: named(application, "service"),
    receivers: named(application, "receiver"),
    providers: named(application, "provider"),
  };
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k as keyof ApkManifest];
  return out;
}
