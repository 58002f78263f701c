/**
 * A file's name as both services keep it: text to show, never a path on this disk (files are
 * stored under ids). Kept whole — `<b>bold</b>.zip` holds a `/` that is markup, not a folder —
 * without control characters and bounded in length. Browsers and `./loupe analyze` send a base
 * name already (RFC 7578); a client that sends a path has it shown as it sent it.
 */

export const MAX_FILE_NAME_CHARS = 255;

export function cleanFileName(name: string | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  const text = (name ?? "").replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
  // Code points, not UTF-16 units: a bound never splits a surrogate pair.
  return Array.from(text).slice(0, MAX_FILE_NAME_CHARS).join("");
}
