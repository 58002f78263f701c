/**
 * PowerPoint "fast save", written from the [MS-PPT] layout: an incremental edit appended to a
 * .ppt as PowerPoint 97–2003 appends one — a new copy of a changed slide, a PersistDirectoryAtom
 * pointing the slide's persist id at the copy, a UserEditAtom chained to the previous edit, and
 * the Current User stream pointed at the new edit. The superseded slide stays in the file.
 */
import * as CFB from "cfb";

const SLIDE = 0x03ee;
const PERSIST_DIRECTORY_ATOM = 0x1772;

function streamEntry(container: CFB.CFB$Container, name: string): CFB.CFB$Entry {
  const index = container.FullPaths.indexOf(`${container.FullPaths[0]}${name}`);
  const entry = container.FileIndex[index];
  if (!entry) throw new Error(`no ${name} stream`);
  return entry;
}

/** Rewrites the slide that holds `from` so it says `to` (same length in UTF-16), as a fast-saved edit. */
export function fastSaveEdit(ppt: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error("the replacement must keep the text's length");
  const container = CFB.read(ppt, { type: "buffer" });
  const docEntry = streamEntry(container, "PowerPoint Document");
  const cuEntry = streamEntry(container, "Current User");
  const doc = Buffer.from(docEntry.content as Uint8Array);
  const cu = Buffer.from(cuEntry.content as Uint8Array);

  const lastEdit = cu.readUInt32LE(16); // CurrentUserAtom.offsetToCurrentEdit
  const editLength = 8 + doc.readUInt32LE(lastEdit + 4);
  const persistDirAt = doc.readUInt32LE(lastEdit + 8 + 12);
  const offsets = new Map<number, number>();
  const dirEnd = persistDirAt + 8 + doc.readUInt32LE(persistDirAt + 4);
  for (let at = persistDirAt + 8; at < dirEnd; ) {
    const entry = doc.readUInt32LE(at);
    at += 4;
    for (let k = 0; k < entry >>> 20; k++, at += 4) offsets.set((entry & 0xfffff) + k, doc.readUInt32LE(at));
  }

  const textAt = doc.indexOf(Buffer.from(from, "utf16le"));
  if (textAt < 0) throw new Error(`"${from}" is not in the presentation`);
  const [persistId, slideAt] = [...offsets].find(
    ([, off]) =>
      doc.readUInt16LE(off + 2) === SLIDE && off < textAt && textAt < off + 8 + doc.readUInt32LE(off + 4),
  ) ?? [undefined, undefined];
  if (persistId === undefined || slideAt === undefined) throw new Error("no slide holds the text");

  const slide = Buffer.from(doc.subarray(slideAt, slideAt + 8 + doc.readUInt32LE(slideAt + 4)));
  Buffer.from(to, "utf16le").copy(slide, textAt - slideAt);
  const newSlideAt = doc.length;
  const directory = Buffer.alloc(16);
  directory.writeUInt16LE(0, 0);
  directory.writeUInt16LE(PERSIST_DIRECTORY_ATOM, 2);
  directory.writeUInt32LE(8, 4);
  directory.writeUInt32LE((persistId | (1 << 20)) >>> 0, 8);
  directory.writeUInt32LE(newSlideAt, 12);
  const newDirAt = newSlideAt + slide.length;
  const edit = Buffer.from(doc.subarray(lastEdit, lastEdit + editLength));
  edit.writeUInt32LE(lastEdit, 8 + 8); // offsetLastEdit
  edit.writeUInt32LE(newDirAt, 8 + 12); // offsetPersistDirectory
  const newEditAt = newDirAt + directory.length;

  const newDoc = Buffer.concat([doc, slide, directory, edit]);
  const newCu = Buffer.from(cu);
  newCu.writeUInt32LE(newEditAt, 16);
  docEntry.content = newDoc;
  docEntry.size = newDoc.length;
  cuEntry.content = newCu;
  return Buffer.from(CFB.write(container, { type: "buffer" }) as Uint8Array);
}
