/**
 * Writes the DOCX and PDF of the labelled indicator set (test/fixtures/iocs/briefing.*) with
 * LibreOffice from a flat OpenDocument source, so the set holds real office formats. Run it again
 * only to change them: `node bench/iocs/make-documents.ts`; the labels are in labels.json.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { ROOT } from "../../src/common/config.ts";
import { convertWithLibreOffice, flatText } from "../../test/helpers/libreoffice.ts";

export const BRIEFING_PAGES: string[][] = [
  [
    "Incident briefing IR-2026-031 (template v4.2.0.1, issued 03.11.2026)",
    "The intrusion started with a download from hXXps://secure-login-verify[.]com/o365/auth and a second stage at hxxp[:]//files-share-dropbox.ru/d/8812.hta. The operators later moved to EVIL-CORP-UPDATE.COM and to the bare host mirror3.cdn-fastpatch.net.",
    "Beacons went to 62.233.50.25 and 80.66.88.145, never to the test server (198.51.100.7) nor to 172.20.0.9.",
    "Legitimate services abused: www.dropbox.com and api.telegram.org.",
  ],
  [
    "Artefacts: the HTA wrote C:\\ProgramData\\Intel\\igfxsrv.exe, registered HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\RunOnce and left notes.txt, data.zip and agent.py behind.",
    "SHA-256 of igfxsrv.exe: 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",
    "MD5 of the HTA: 7d793037a0760186574b0282f2f435e7",
    "Exploited: CVE-2025-24054. Ransom note addresses: 3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy and john.smith(at)gov-mail-portal.org.",
    "Version 5.0.2195.6717 of the driver, dated 2026.01.15, was not involved. Call the hotline on +33 1 70 36 00 00.",
  ],
];

async function main() {
  const source = flatText(
    { title: "Incident briefing", creator: "IR team", created: "2026-11-03T10:00:00", language: "en-GB" },
    "Incident briefing",
    BRIEFING_PAGES,
  );
  const out = await convertWithLibreOffice([
    { source: "briefing.fodt", content: source, to: ["docx", "pdf"] },
  ]);
  for (const [name, bytes] of Object.entries(out))
    await writeFile(path.join(ROOT, "test/fixtures/iocs", name), bytes);
  console.log(Object.keys(out).join(", "));
}

if (import.meta.main) await main();
