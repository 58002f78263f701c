/**
 * Outlook .msg files written from the published [MS-OXMSG] layout with the `cfb` package's
 * writer (no Debian tool writes MSG): a root `__properties_version1.0` stream of fixed-size
 * properties, one `__substg1.0_TTTTYYYY` stream per variable-size property (Unicode strings are
 * type 001F, binary 0102), a storage per recipient and per attachment, and the named-property
 * mapping storage.
 */
import * as CFB from "cfb";

export interface MsgRecipient {
  name: string;
  email: string;
  kind: "to" | "cc";
}

export type MsgAttachment =
  | { fileName: string; mimeType: string; content: Buffer }
  /** An attached message (a forwarded mail), stored as an embedded message object. */
  | { fileName: string; message: MsgSpec };

export interface MsgSpec {
  subject: string;
  senderName: string;
  senderEmail: string;
  recipients: MsgRecipient[];
  /** Plain-text body; leave out to store only an HTML body or only an RTF body. */
  body?: string;
  html?: string;
  /** RTF body, stored compressed in PidTagRtfCompressed as Outlook does. */
  rtf?: string;
  sent: Date;
  attachments: MsgAttachment[];
}

const PT_LONG = 0x0003;
const PT_BOOLEAN = 0x000b;
const PT_SYSTIME = 0x0040;
const PT_UNICODE = 0x001f;
const PT_BINARY = 0x0102;
/** Properties are readable and writable. */
const PROPATTR = 0x00000006;

const utf16 = (s: string) => Buffer.from(s, "utf16le");
const tagName = (id: number, type: number) =>
  `__substg1.0_${id.toString(16).toUpperCase().padStart(4, "0")}${type.toString(16).toUpperCase().padStart(4, "0")}`;

function filetime(d: Date): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(d.getTime()) * 10000n + 116444736000000000n);
  return b;
}

type Fixed = { id: number; type: number; value: Buffer };
type Variable = { id: number; type: number; value: Buffer };

/** Entries of a property stream: 16 bytes each (tag, flags, 8-byte value or the size of the stream). */
function propertyEntries(fixed: Fixed[], variable: Variable[]): Buffer {
  const entries = [...fixed, ...variable].map((p) => {
    const e = Buffer.alloc(16);
    e.writeUInt32LE(((p.id << 16) | p.type) >>> 0, 0);
    e.writeUInt32LE(PROPATTR, 4);
    if (fixed.includes(p)) p.value.copy(e, 8, 0, 8);
    else e.writeUInt32LE(p.value.length + (p.type === PT_UNICODE ? 2 : 0), 8);
    return e;
  });
  return Buffer.concat(entries);
}

const long = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(n, 0);
  return b;
};

function addObject(
  cfb: CFB.CFB$Container,
  dir: string,
  header: Buffer,
  fixed: Fixed[],
  variable: Variable[],
) {
  CFB.utils.cfb_add(
    cfb,
    `${dir}__properties_version1.0`,
    Buffer.concat([header, propertyEntries(fixed, variable)]),
  );
  for (const v of variable) CFB.utils.cfb_add(cfb, `${dir}${tagName(v.id, v.type)}`, v.value);
}

export function buildMsg(spec: MsgSpec): Buffer {
  const cfb = CFB.utils.cfb_new();
  // Named-property mapping: present (empty) in every top-level message.
  CFB.utils.cfb_add(cfb, "/__nameid_version1.0/__substg1.0_00020102", Buffer.alloc(0));
  CFB.utils.cfb_add(cfb, "/__nameid_version1.0/__substg1.0_00030102", Buffer.alloc(0));
  CFB.utils.cfb_add(cfb, "/__nameid_version1.0/__substg1.0_00040102", Buffer.alloc(0));
  addMessage(cfb, "/", spec, true);
  return Buffer.from(CFB.write(cfb, { type: "buffer" }) as Uint8Array);
}

/** A message's properties, recipients and attachments under `root` (the root storage, or an embedded message's). */
function addMessage(cfb: CFB.CFB$Container, root: string, spec: MsgSpec, topLevel: boolean) {
  const displayOf = (kind: "to" | "cc") =>
    spec.recipients
      .filter((r) => r.kind === kind)
      .map((r) => r.name)
      .join("; ");
  const variable: Variable[] = [
    { id: 0x001a, type: PT_UNICODE, value: utf16("IPM.Note") },
    { id: 0x0037, type: PT_UNICODE, value: utf16(spec.subject) },
    { id: 0x0c1a, type: PT_UNICODE, value: utf16(spec.senderName) },
    { id: 0x0c1e, type: PT_UNICODE, value: utf16("SMTP") },
    { id: 0x0c1f, type: PT_UNICODE, value: utf16(spec.senderEmail) },
    { id: 0x5d01, type: PT_UNICODE, value: utf16(spec.senderEmail) },
    { id: 0x0e04, type: PT_UNICODE, value: utf16(displayOf("to")) },
    { id: 0x0e03, type: PT_UNICODE, value: utf16(displayOf("cc")) },
    { id: 0x1035, type: PT_UNICODE, value: utf16(`<${spec.sent.getTime()}@loupe.test>`) },
  ];
  if (spec.body !== undefined) variable.push({ id: 0x1000, type: PT_UNICODE, value: utf16(spec.body) });
  if (spec.html !== undefined) variable.push({ id: 0x1013, type: PT_BINARY, value: Buffer.from(spec.html) });
  if (spec.rtf !== undefined)
    variable.push({ id: 0x1009, type: PT_BINARY, value: compressRtf(Buffer.from(spec.rtf, "latin1")) });
  const fixed: Fixed[] = [
    { id: 0x0039, type: PT_SYSTIME, value: filetime(spec.sent) }, // PidTagClientSubmitTime
    { id: 0x0e06, type: PT_SYSTIME, value: filetime(spec.sent) }, // PidTagMessageDeliveryTime
    { id: 0x3007, type: PT_SYSTIME, value: filetime(spec.sent) }, // PidTagCreationTime
    { id: 0x0e07, type: PT_LONG, value: long(spec.attachments.length ? 0x10 : 0) }, // PidTagMessageFlags
    { id: 0x0e1b, type: PT_BOOLEAN, value: long(spec.attachments.length ? 1 : 0) }, // PidTagHasAttachments
  ];
  // Header: 8 reserved, next recipient id, next attachment id, recipient count, attachment count,
  // then 8 more reserved bytes in a top-level message only.
  const header = Buffer.alloc(topLevel ? 32 : 24);
  header.writeUInt32LE(spec.recipients.length, 8);
  header.writeUInt32LE(spec.attachments.length, 12);
  header.writeUInt32LE(spec.recipients.length, 16);
  header.writeUInt32LE(spec.attachments.length, 20);
  addObject(cfb, root, header, fixed, variable);

  spec.recipients.forEach((r, i) => {
    const dir = `${root}__recip_version1.0_#${i.toString(16).toUpperCase().padStart(8, "0")}/`;
    addObject(
      cfb,
      dir,
      Buffer.alloc(8),
      [
        { id: 0x0c15, type: PT_LONG, value: long(r.kind === "to" ? 1 : 2) }, // PidTagRecipientType
        { id: 0x3000, type: PT_LONG, value: long(i) }, // PidTagRowid
      ],
      [
        { id: 0x3001, type: PT_UNICODE, value: utf16(r.name) },
        { id: 0x3002, type: PT_UNICODE, value: utf16("SMTP") },
        { id: 0x3003, type: PT_UNICODE, value: utf16(r.email) },
        { id: 0x39fe, type: PT_UNICODE, value: utf16(r.email) },
      ],
    );
  });
  spec.attachments.forEach((a, i) => {
    const dir = `${root}__attach_version1.0_#${i.toString(16).toUpperCase().padStart(8, "0")}/`;
    if ("message" in a) {
      addObject(
        cfb,
        dir,
        Buffer.alloc(8),
        [
          { id: 0x3705, type: PT_LONG, value: long(5) }, // PidTagAttachMethod: embedded message
          { id: 0x0e21, type: PT_LONG, value: long(i) },
        ],
        [
          { id: 0x3001, type: PT_UNICODE, value: utf16(a.fileName) },
          { id: 0x3707, type: PT_UNICODE, value: utf16(a.fileName) },
        ],
      );
      // PidTagAttachDataObject: the message's own storage.
      addMessage(cfb, `${dir}__substg1.0_3701000D/`, a.message, false);
      return;
    }
    addObject(
      cfb,
      dir,
      Buffer.alloc(8),
      [
        { id: 0x3705, type: PT_LONG, value: long(1) }, // PidTagAttachMethod: by value
        { id: 0x0e20, type: PT_LONG, value: long(a.content.length) }, // PidTagAttachSize
        { id: 0x0e21, type: PT_LONG, value: long(i) }, // PidTagAttachNumber
      ],
      [
        { id: 0x3707, type: PT_UNICODE, value: utf16(a.fileName) }, // long file name
        { id: 0x3704, type: PT_UNICODE, value: utf16(a.fileName.slice(0, 12)) },
        { id: 0x3001, type: PT_UNICODE, value: utf16(a.fileName) },
        { id: 0x370e, type: PT_UNICODE, value: utf16(a.mimeType) },
        { id: 0x3701, type: PT_BINARY, value: a.content }, // PidTagAttachDataBinary
      ],
    );
  });
}

/** The dictionary every compressed RTF starts with ([MS-OXRTFCP] 2.1.3.1.1), 207 bytes. */
const INITIAL_DICTIONARY =
  "{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx";

/** [MS-OXRTFCP] 2.1.3.2: CRC-32 table, started at 0, not inverted. */
function rtfCrc(data: Buffer): number {
  let crc = 0;
  for (const b of data) {
    let c = (crc ^ b) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (c ^ (crc >>> 8)) >>> 0;
  }
  return crc;
}

/**
 * LZFu compression as the format allows it at its simplest: every byte a literal (control bits
 * 0), then the end marker — a dictionary reference to the current write position.
 */
export function compressRtf(raw: Buffer): Buffer {
  const out: number[] = [];
  let i = 0;
  let ended = false;
  while (!ended) {
    let control = 0;
    const controlAt = out.length;
    out.push(0);
    for (let bit = 0; bit < 8; bit++) {
      if (i < raw.length) {
        out.push(raw[i] as number);
        i++;
        continue;
      }
      const end = (INITIAL_DICTIONARY.length + raw.length) % 4096;
      control |= 1 << bit;
      out.push((end >> 4) & 0xff, (end & 0x0f) << 4);
      ended = true;
      break;
    }
    out[controlAt] = control;
  }
  const content = Buffer.from(out);
  const header = Buffer.alloc(16);
  header.writeUInt32LE(content.length + 12, 0);
  header.writeUInt32LE(raw.length, 4);
  header.write("LZFu", 8, "latin1");
  header.writeUInt32LE(rtfCrc(content), 12);
  return Buffer.concat([header, content]);
}
