/**
 * The optional extraction backends: OCR with Debian's tesseract (images and PDF pages without a
 * text layer), and Apache Tika for formats Loupe cannot read, here a fake Tika on loopback that
 * answers /rmeta/text with Tika's JSON (an array of metadata objects, text in X-TIKA:content).
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import {
  extractOk,
  startFilesServer,
  type TestFilesServer,
  waitForNoLeftovers,
} from "../helpers/files-server.ts";
import { convertWithLibreOffice, flatText } from "../helpers/libreoffice.ts";
import { skipUnlessCommands } from "../helpers/requires.ts";

/** Big black words on white, as a scanner would see them. */
function renderedText(lines: string[]): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1400" height="${120 + lines.length * 130}"><rect width="100%" height="100%" fill="white"/>${lines
    .map(
      (l, i) =>
        `<text x="40" y="${150 + i * 130}" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="72" fill="black">${l}</text>`,
    )
    .join("")}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const extract = extractOk;

describe("OCR backend (OCR=1, tesseract)", {
  skip: skipUnlessCommands("tesseract", "pdftoppm", "soffice"),
}, () => {
  let server: TestFilesServer;
  let scan: Buffer;
  let docs: Record<string, Buffer>;
  before(async () => {
    server = await startFilesServer({ OCR: "1", OCR_LANGUAGES: "eng", OCR_TIMEOUT_MS: "60000" });
    scan = await renderedText(["Spyware found on phone", "Invoice 4711 overdue"]);
    docs = await convertWithLibreOffice([
      { source: "scan.png", content: scan, to: ["pdf"] },
      {
        source: "mixed.fodt",
        content: flatText(
          { title: "Mixed", creator: "CERT", created: "2026-01-01T00:00:00", language: "en-GB" },
          "Typed page",
          [["This first page has a text layer."]],
          [{ png: scan, widthCm: 17, heightCm: 17 * (400 / 1400) }],
        ),
        to: ["pdf"],
      },
    ]);
  });
  after(() => server.close());

  it("reads the words in an image and says OCR was used", async () => {
    const { content, analysis } = await extract(server, scan, "scan.png");
    assert.equal(analysis.type, "image/png");
    assert.match(content, /Spyware found on phone/);
    assert.match(content, /Invoice 4711 overdue/);
    assert.equal(analysis.extra.loupe.ocr, "true");
    assert.equal(analysis.extra.image.width, 1400);
    assert.deepEqual(await waitForNoLeftovers(server), [], "OCR temp files are removed");
  });

  it("reads an image-only PDF page by page, and only the pages without text", async () => {
    const imageOnly = await extract(server, docs["scan.pdf"] ?? Buffer.alloc(0), "scan.pdf");
    assert.equal(imageOnly.analysis.type, "application/pdf");
    assert.match(imageOnly.content, /Spyware found on phone/);
    assert.equal(imageOnly.analysis.extra.loupe.ocr, "true");
    assert.deepEqual(imageOnly.analysis.extra.pdf.ocr_pages, [1]);

    const mixed = await extract(server, docs["mixed.pdf"] ?? Buffer.alloc(0), "mixed.pdf");
    assert.equal(mixed.analysis.extra.pdf.page_count, 2);
    assert.deepEqual(mixed.analysis.extra.pdf.ocr_pages, [2], "page 1 has text: not OCRed");
    const [first, second] = mixed.content.split("\n\n");
    assert.match(first ?? "", /first page has a text layer/);
    assert.match(second ?? "", /Invoice 4711 overdue/);
    assert.deepEqual(await waitForNoLeftovers(server), []);
  });

  it("without OCR=1, an image has no text and nothing says OCR", async () => {
    const plain = await startFilesServer();
    try {
      const { content, analysis } = await extract(plain, scan, "scan.png");
      assert.equal(content, "");
      assert.equal(analysis.extra.loupe, undefined);
    } finally {
      await plain.close();
    }
  });

  it("a failing OCR (unknown language) keeps the image's metadata and says why", async () => {
    const broken = await startFilesServer({ OCR: "1", OCR_LANGUAGES: "xxx" });
    try {
      const { content, analysis } = await extract(broken, scan, "scan.png");
      assert.equal(content, "");
      assert.equal(analysis.extra.image.width, 1400);
      assert.ok(analysis.extra.loupe.ocr_error, JSON.stringify(analysis.extra.loupe));
      assert.equal(analysis.extra.loupe.ocr, undefined);
    } finally {
      await broken.close();
    }
  });
});

describe("Tika backend (TIKA_URL)", () => {
  /** Bytes no native reader knows: magic-less binary with a few strings in it. */
  const unknown = Buffer.concat([
    Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe, 0xee]),
    Buffer.from("LOUPE-PROPRIETARY-FORMAT"),
    Buffer.alloc(64, 0x07),
  ]);
  let tika: Server;
  let tikaUrl: string;
  let mode: "ok" | "slow" | "error" | "garbage" = "ok";
  const received: Array<{ method: string; url: string; accept: string; bytes: Buffer }> = [];

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };

  before(async () => {
    tika = createServer(async (req, res) => {
      const bytes = await readBody(req);
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        accept: String(req.headers.accept),
        bytes,
      });
      if (req.method !== "PUT" || req.url !== "/rmeta/text") {
        res.writeHead(404).end();
        return;
      }
      if (mode === "slow") return; // never answers: the client's time limit must end the wait
      if (mode === "error") {
        res.writeHead(422, { "content-type": "text/plain" }).end("Unprocessable Entity");
        return;
      }
      if (mode === "garbage") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"not": "an array"}');
        return;
      }
      // The shape Tika's /rmeta/text answers: the container first, then each embedded document.
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify([
          {
            "Content-Type": "application/x-loupe-proprietary; version=2",
            "Content-Length": String(bytes.length),
            "X-TIKA:Parsed-By": ["org.apache.tika.parser.DefaultParser", "org.example.ProprietaryParser"],
            "X-TIKA:parse_time_millis": "12",
            "X-TIKA:embedded_depth": "0",
            "dc:title": "Quarterly exfiltration plan",
            "dc:creator": "Operator 7",
            "dcterms:created": "2024-02-29T13:14:15Z",
            "X-TIKA:content":
              "\nThe investigators found the spyware on the journalist's phone after a careful forensic analysis.\n",
          },
          {
            "Content-Type": "text/plain; charset=UTF-8",
            "X-TIKA:embedded_resource_path": "/notes.txt",
            "X-TIKA:embedded_depth": "1",
            resourceName: "notes.txt",
            "X-TIKA:content": "Embedded note: meet at the harbour.",
          },
        ]),
      );
    });
    await new Promise<void>((r) => tika.listen(0, "127.0.0.1", r));
    tikaUrl = `http://127.0.0.1:${(tika.address() as AddressInfo).port}`;
  });
  after(() => {
    tika.closeAllConnections();
    return new Promise<void>((r) => tika.close(() => r()));
  });

  it("sends an unreadable file to Tika and merges its text and metadata", async () => {
    mode = "ok";
    received.length = 0;
    const server = await startFilesServer({ TIKA_URL: `${tikaUrl}/` });
    try {
      const { content, analysis } = await extract(server, unknown, "blob.xyz");
      assert.equal(received.length, 1);
      assert.equal(received[0]?.method, "PUT");
      assert.equal(received[0]?.url, "/rmeta/text");
      assert.match(received[0]?.accept ?? "", /application\/json/);
      assert.deepEqual(received[0]?.bytes, unknown, "the file is sent as is");
      assert.equal(analysis.type, "application/x-loupe-proprietary");
      assert.equal(analysis.title, "Quarterly exfiltration plan");
      assert.equal(analysis.created, "2024-02-29T13:14:15.000Z");
      assert.equal(analysis.language, "en");
      assert.match(content, /^The investigators found the spyware/);
      assert.match(content, /── notes\.txt ──\nEmbedded note: meet at the harbour\./);
      assert.equal(analysis.extra.tika.dc_creator, "Operator 7");
      assert.deepEqual(analysis.extra.tika.x_tika_parsed_by, [
        "org.apache.tika.parser.DefaultParser",
        "org.example.ProprietaryParser",
      ]);
      assert.equal(analysis.extra.tika.embedded_count, 1);
      assert.equal(analysis.extra.loupe.tika, "true");
      assert.equal(analysis.extra.binary, undefined);
    } finally {
      await server.close();
    }
  });

  it("never sends files Loupe reads itself", async () => {
    mode = "ok";
    received.length = 0;
    const server = await startFilesServer({ TIKA_URL: tikaUrl });
    try {
      const { analysis } = await extract(server, "Plain words, read natively.", "a.txt");
      assert.equal(analysis.type, "text/plain");
      assert.equal(received.length, 0);
    } finally {
      await server.close();
    }
  });

  for (const failure of ["error", "garbage", "slow"] as const) {
    it(`falls back to the native strings when Tika ${failure === "slow" ? "times out" : `answers ${failure}`}`, async () => {
      mode = failure;
      // Room for a fresh extraction process's first request on a loaded machine; "slow" never answers.
      const server = await startFilesServer({ TIKA_URL: tikaUrl, TIKA_TIMEOUT_MS: "3000" });
      try {
        const { content, analysis } = await extract(server, unknown, "blob.xyz");
        assert.equal(analysis.type, "application/octet-stream");
        assert.equal(content, "LOUPE-PROPRIETARY-FORMAT");
        assert.equal(analysis.extra.binary.strings_only, "true");
        assert.equal(analysis.extra.loupe.tika, "failed");
        const expected = { error: /HTTP 422/, garbage: /not a JSON array/, slow: /timeout after 3000 ms/ }[
          failure
        ];
        assert.match(analysis.extra.loupe.tika_error, expected);
      } finally {
        await server.close();
      }
    });
  }
});
