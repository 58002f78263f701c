/**
 * What an Office file carries inside its OLE container: embedded objects (Packager
 * `\x01Ole10Native` files — the classic way to hide an executable in a document —, OOXML
 * `Package` streams, and whole sub-documents stored as storages, e.g. a workbook in a Word
 * document's ObjectPool), and whether it holds VBA macros.
 */
import * as CFB from "cfb";

export interface EmbeddedObject {
  name: string;
  bytes: Buffer;
}

const DOCUMENT_STREAMS = new Set(["WordDocument", "Workbook", "Book", "PowerPoint Document"]);

const asBuffer = (c: CFB.CFB$Blob | undefined) =>
  c
    ? Buffer.from((c as Uint8Array).buffer, (c as Uint8Array).byteOffset, (c as Uint8Array).byteLength)
    : null;

/** Packager payload: size, flags, label, source path, reserved, temp path, then the file's bytes. */
export function readOle10Native(stream: Buffer): EmbeddedObject | null {
  let at = 4 + 2;
  const cstring = () => {
    const end = stream.indexOf(0, at);
    if (end < 0) return null;
    const s = stream.toString("latin1", at, end);
    at = end + 1;
    return s;
  };
  const label = cstring();
  const source = cstring();
  if (label === null || source === null || at + 8 > stream.length) return null;
  at += 4; // reserved
  const tempLength = stream.readUInt32LE(at);
  at += 4 + tempLength;
  if (at + 4 > stream.length) return null;
  const size = stream.readUInt32LE(at);
  at += 4;
  if (at + size > stream.length) return null;
  const name = label || source.split(/[\\/]/).pop() || "package";
  return { name, bytes: stream.subarray(at, at + size) };
}

/** Embedded objects below the root storage (the document's own streams are not among them). */
export function embeddedObjects(container: CFB.CFB$Container): EmbeddedObject[] {
  const root = container.FullPaths[0] ?? "";
  const found: EmbeddedObject[] = [];
  const paths = container.FullPaths.map((p, i) => ({
    path: p.slice(root.length),
    entry: container.FileIndex[i],
  }));
  for (const { path, entry } of paths) {
    if (entry?.type !== 2) continue;
    // The document's own streams; but an OLE object file (a DOCX's oleObject1.bin) holds its payload at the root.
    if (!path.includes("/") && path !== "\u0001Ole10Native" && path !== "Package") continue;
    const name = path.slice(path.lastIndexOf("/") + 1);
    const bytes = asBuffer(entry.content);
    if (!bytes) continue;
    if (name === "\u0001Ole10Native") {
      const packaged = readOle10Native(bytes);
      if (packaged) found.push(packaged);
    } else if (name === "Package") {
      found.push({ name: path, bytes });
    } else if (DOCUMENT_STREAMS.has(name)) {
      // A whole document stored as a storage: rebuilt as a compound file of its own.
      const storage = path.slice(0, path.lastIndexOf("/") + 1);
      const sub = CFB.utils.cfb_new();
      for (const other of paths) {
        const content = asBuffer(other.entry?.content);
        if (other.entry?.type === 2 && other.path.startsWith(storage) && content)
          CFB.utils.cfb_add(sub, `/${other.path.slice(storage.length)}`, content);
      }
      found.push({
        name: storage.replace(/\/$/, ""),
        bytes: Buffer.from(CFB.write(sub, { type: "buffer" }) as Uint8Array),
      });
    }
  }
  return found;
}

/** VBA projects live in a `Macros` (Word) or `_VBA_PROJECT_CUR` (Excel) storage. */
export function hasMacros(container: CFB.CFB$Container): boolean {
  return container.FullPaths.some((p) => /\/(Macros|_VBA_PROJECT_CUR)\/VBA\//i.test(p));
}
