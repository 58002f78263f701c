/** Windows shortcut (LNK) facts from YARA-X's `lnk` module (as printed by the facts rules). */
import { type ExecutableFacts, emptyFacts, items, num, text, unixTime } from "./facts.ts";
import type { FactRecord } from "./lines.ts";

/** SW_* values of the ShowCommand field (MS-SHLLINK 2.1). */
const SHOW_COMMANDS: Record<number, string> = { 1: "normal", 3: "maximized", 7: "minimized" };

/** Where the shortcut points: the LinkInfo local path, else the relative path, else the ID list. */
function targetPath(facts: FactRecord): string | null {
  const base = text(facts, "lnk.local_base_path");
  if (base) return base + (text(facts, "lnk.common_path_suffix") ?? "");
  const relative = text(facts, "lnk.relative_path");
  if (relative) return relative;
  const parts = items(facts, "lnk.item").flatMap((i) => {
    const part = text(i, "volume") ?? text(i, "name") ?? text(i, "network");
    return part ? [part] : [];
  });
  return parts.length > 0 ? parts.join("\\").replace(/\\{2,}/g, "\\") : null;
}

export function describeLnk(facts: FactRecord): ExecutableFacts {
  const found = emptyFacts("lnk");
  const overlaySize = num(facts, "lnk.overlay_size") ?? 0;
  const overlayOffset = num(facts, "lnk.overlay_offset");
  found.overlay =
    overlaySize > 0 && overlayOffset !== null ? { offset: overlayOffset, size: overlaySize } : null;
  found.details = {
    target_path: targetPath(facts),
    arguments: text(facts, "lnk.arguments"),
    working_dir: text(facts, "lnk.working_dir"),
    description: text(facts, "lnk.name"),
    icon_location: text(facts, "lnk.icon_location"),
    relative_path: text(facts, "lnk.relative_path"),
    machine_id: text(facts, "lnk.machine_id"),
    volume_label: text(facts, "lnk.volume_label"),
    drive_serial_number: num(facts, "lnk.drive_serial_number"),
    show_command: SHOW_COMMANDS[num(facts, "lnk.show_command") ?? 0] ?? null,
    target_size: num(facts, "lnk.file_size"),
    target_attributes: num(facts, "lnk.file_attributes"),
    created: unixTime(num(facts, "lnk.creation_time")),
    accessed: unixTime(num(facts, "lnk.access_time")),
    modified: unixTime(num(facts, "lnk.write_time")),
  };
  return found;
}
