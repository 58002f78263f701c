/**
 * A Windows shortcut written from its published layout ([MS-SHLLINK]): the 76-byte header,
 * a LinkInfo with a VolumeID and a local base path, Unicode string data (description, relative
 * path, working directory, arguments, icon location), a TrackerDataBlock naming the machine, and
 * the terminal block. No Debian tool writes LNK files.
 */

export interface ShortcutOptions {
  target: string;
  arguments: string;
  workingDir: string;
  description: string;
  relativePath: string;
  iconLocation: string;
  machineId: string;
  volumeLabel: string;
  driveSerial: number;
  /** The target's times, as Unix seconds (written as FILETIME). */
  created: number;
  accessed: number;
  modified: number;
  targetSize: number;
  /** SW_SHOWMINNOACTIVE (7) hides the window of a malicious shortcut. */
  showCommand: number;
}

const HAS_LINK_INFO = 0x2;
const HAS_NAME = 0x4;
const HAS_RELATIVE_PATH = 0x8;
const HAS_WORKING_DIR = 0x10;
const HAS_ARGUMENTS = 0x20;
const HAS_ICON_LOCATION = 0x40;
const IS_UNICODE = 0x80;
const FILE_ATTRIBUTE_ARCHIVE = 0x20;
const DRIVE_FIXED = 3;
const LINK_CLSID = Buffer.from("0114020000000000c000000000000046", "hex");

/** Unix seconds → FILETIME (100 ns ticks since 1601). */
const filetime = (seconds: number) => (BigInt(seconds) + 11_644_473_600n) * 10_000_000n;

function header(o: ShortcutOptions): Buffer {
  const h = Buffer.alloc(76);
  h.writeUInt32LE(0x4c, 0);
  LINK_CLSID.copy(h, 4);
  const flags =
    HAS_LINK_INFO |
    HAS_NAME |
    HAS_RELATIVE_PATH |
    HAS_WORKING_DIR |
    HAS_ARGUMENTS |
    HAS_ICON_LOCATION |
    IS_UNICODE;
  h.writeUInt32LE(flags, 20);
  h.writeUInt32LE(FILE_ATTRIBUTE_ARCHIVE, 24);
  h.writeBigUInt64LE(filetime(o.created), 28);
  h.writeBigUInt64LE(filetime(o.accessed), 36);
  h.writeBigUInt64LE(filetime(o.modified), 44);
  h.writeUInt32LE(o.targetSize, 52);
  h.writeUInt32LE(0, 56); // icon index
  h.writeUInt32LE(o.showCommand, 60);
  return h; // hot key and reserved fields stay 0
}

/** LinkInfo (2.3): VolumeID and LocalBasePath, an empty CommonPathSuffix. */
function linkInfo(o: ShortcutOptions): Buffer {
  const label = Buffer.from(`${o.volumeLabel}\0`, "latin1");
  const volume = Buffer.alloc(16);
  volume.writeUInt32LE(16 + label.length, 0);
  volume.writeUInt32LE(DRIVE_FIXED, 4);
  volume.writeUInt32LE(o.driveSerial, 8);
  volume.writeUInt32LE(16, 12); // the label follows the VolumeID header
  const volumeId = Buffer.concat([volume, label]);
  const basePath = Buffer.from(`${o.target}\0`, "latin1");
  const suffix = Buffer.from("\0", "latin1");
  const headerSize = 0x1c;
  const head = Buffer.alloc(headerSize);
  const size = headerSize + volumeId.length + basePath.length + suffix.length;
  head.writeUInt32LE(size, 0);
  head.writeUInt32LE(headerSize, 4);
  head.writeUInt32LE(1, 8); // VolumeIDAndLocalBasePath
  head.writeUInt32LE(headerSize, 12);
  head.writeUInt32LE(headerSize + volumeId.length, 16);
  head.writeUInt32LE(0, 20); // no CommonNetworkRelativeLink
  head.writeUInt32LE(headerSize + volumeId.length + basePath.length, 24);
  return Buffer.concat([head, volumeId, basePath, suffix]);
}

/** StringData (2.4): a character count, then UTF-16LE without a terminator. */
function stringData(value: string): Buffer {
  const count = Buffer.alloc(2);
  count.writeUInt16LE(value.length, 0);
  return Buffer.concat([count, Buffer.from(value, "utf16le")]);
}

/** TrackerDataBlock (2.5.10): the NetBIOS name of the machine the link was made on. */
function trackerBlock(machineId: string): Buffer {
  const block = Buffer.alloc(0x60);
  block.writeUInt32LE(0x60, 0);
  block.writeUInt32LE(0xa0000003, 4);
  block.writeUInt32LE(0x58, 8);
  block.writeUInt32LE(0, 12);
  block.write(machineId, 16, 16, "latin1");
  return block; // the Droid GUIDs stay zero
}

export function shortcut(o: ShortcutOptions): Buffer {
  return Buffer.concat([
    header(o),
    linkInfo(o),
    ...[o.description, o.relativePath, o.workingDir, o.arguments, o.iconLocation].map(stringData),
    trackerBlock(o.machineId),
    Buffer.alloc(4), // TerminalBlock
  ]);
}
