/**
 * Android APKs for the tests: a ZIP with a binary AndroidManifest.xml encoded from the AXML
 * layout (as aapt2 writes it: string pool, resource map, namespace and element chunks with typed
 * attribute values) and a classes.dex header.
 */
import { storedZip } from "./zip.ts";

export type AttrValue = string | number | boolean;

export interface AxmlElement {
  name: string;
  /** "android:name" for attributes in the android namespace, "package" for plain ones. */
  attributes: Record<string, AttrValue>;
  children?: AxmlElement[];
}

const ANDROID_NS = "http://schemas.android.com/apk/res/android";
const RESOURCE_IDS: Record<string, number> = {
  name: 0x01010003,
  label: 0x01010001,
  exported: 0x01010010,
  minSdkVersion: 0x0101020c,
  targetSdkVersion: 0x01010270,
  versionCode: 0x0101021b,
  versionName: 0x0101021c,
};
const NONE = 0xffffffff;

function chunk(type: number, headerSize: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(headerSize, 2);
  head.writeUInt32LE(8 + body.length, 4);
  return Buffer.concat([head, body]);
}

const u32 = (...values: number[]) => {
  const b = Buffer.alloc(values.length * 4);
  for (const [i, v] of values.entries()) b.writeUInt32LE(v >>> 0, i * 4);
  return b;
};

function stringPool(strings: string[], utf8: boolean): Buffer {
  const data: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const s of strings) {
    let encoded: Buffer;
    if (utf8) {
      const bytes = Buffer.from(s, "utf8");
      const len = (n: number) => (n > 0x7f ? Buffer.from([0x80 | (n >> 8), n & 0xff]) : Buffer.from([n]));
      encoded = Buffer.concat([len(s.length), len(bytes.length), bytes, Buffer.from([0])]);
    } else {
      const chars = Buffer.from(s, "utf16le");
      const len = Buffer.alloc(2);
      len.writeUInt16LE(s.length);
      encoded = Buffer.concat([len, chars, Buffer.alloc(2)]);
    }
    offsets.push(offset);
    offset += encoded.length;
    data.push(encoded);
  }
  let strData = Buffer.concat(data);
  if (strData.length % 4) strData = Buffer.concat([strData, Buffer.alloc(4 - (strData.length % 4))]);
  const headerSize = 28;
  const stringsStart = headerSize + strings.length * 4;
  const header = u32(strings.length, 0, utf8 ? 0x100 : 0, stringsStart, 0);
  return chunk(0x0001, headerSize, Buffer.concat([header, u32(...offsets), strData]));
}

/** Encodes an element tree as Android binary XML. `stripNames` empties android attribute names, as release builds do. */
export function encodeAxml(root: AxmlElement, opts: { utf8: boolean; stripNames?: boolean }): Buffer {
  const walk = (e: AxmlElement, f: (e: AxmlElement) => void) => {
    f(e);
    for (const c of e.children ?? []) walk(c, f);
  };
  // Attribute names with resource ids come first: the resource map is indexed like the pool.
  const mapped: string[] = [];
  walk(root, (e) => {
    for (const k of Object.keys(e.attributes)) {
      const local = k.replace(/^android:/, "");
      if (k.startsWith("android:") && RESOURCE_IDS[local] && !mapped.includes(local)) mapped.push(local);
    }
  });
  const strings = mapped.map((m) => (opts.stripNames ? "" : m));
  const index = (s: string) => {
    const i = strings.indexOf(s, mapped.length);
    if (i >= 0) return i;
    strings.push(s);
    return strings.length - 1;
  };
  const prefix = index("android");
  const uri = index(ANDROID_NS);
  const body: Buffer[] = [];
  const node = (type: number, ext: Buffer) => chunk(type, 16, Buffer.concat([u32(1, NONE), ext]));
  body.push(node(0x0100, u32(prefix, uri)));
  const emit = (e: AxmlElement) => {
    const attrs = Object.entries(e.attributes).map(([k, v]) => {
      const isAndroid = k.startsWith("android:");
      const local = k.replace(/^android:/, "");
      const nameIndex = isAndroid && RESOURCE_IDS[local] ? mapped.indexOf(local) : index(local);
      const a = Buffer.alloc(20);
      a.writeUInt32LE(isAndroid ? uri : NONE, 0);
      a.writeUInt32LE(nameIndex, 4);
      a.writeUInt16LE(8, 12);
      if (typeof v === "string") {
        const s = index(v);
        a.writeUInt32LE(s, 8);
        a.writeUInt8(0x03, 15);
        a.writeUInt32LE(s, 16);
      } else {
        a.writeUInt32LE(NONE, 8);
        a.writeUInt8(typeof v === "boolean" ? 0x12 : 0x10, 15);
        a.writeUInt32LE(typeof v === "boolean" ? (v ? NONE : 0) : v, 16);
      }
      return a;
    });
    const ext = Buffer.alloc(20);
    ext.writeUInt32LE(NONE, 0);
    ext.writeUInt32LE(index(e.name), 4);
    ext.writeUInt16LE(20, 8);
    ext.writeUInt16LE(20, 10);
    ext.writeUInt16LE(attrs.length, 12);
    body.push(node(0x0102, Buffer.concat([ext, ...attrs])));
    for (const c of e.children ?? []) emit(c);
    body.push(node(0x0103, u32(NONE, index(e.name))));
  };
  emit(root);
  body.push(node(0x0101, u32(prefix, uri)));
  const pool = stringPool(strings, opts.utf8);
  const resourceMap = chunk(0x0180, 8, u32(...mapped.map((m) => RESOURCE_IDS[m] as number)));
  return chunk(0x0003, 8, Buffer.concat([pool, resourceMap, ...body]));
}

/** The first 112 bytes of a DEX file: magic and version, the rest of the header zero. */
export function dexHeader(): Buffer {
  const b = Buffer.alloc(112);
  b.write("dex\n035\0", 0, "latin1");
  b.writeUInt32LE(112, 32); // file size
  b.writeUInt32LE(112, 36); // header size
  b.writeUInt32LE(0x12345678, 40); // endian tag
  return b;
}

export function buildApk(manifest: AxmlElement, opts: { utf8: boolean; stripNames?: boolean }): Buffer {
  return storedZip({
    "AndroidManifest.xml": encodeAxml(manifest, opts),
    "classes.dex": dexHeader(),
    "res/layout/main.xml": Buffer.from([3, 0, 8, 0, 8, 0, 0, 0]),
    "resources.arsc": Buffer.alloc(12),
    "META-INF/MANIFEST.MF": "Manifest-Version: 1.0\r\nCreated-By: Loupe tests\r\n\r\n",
  });
}
