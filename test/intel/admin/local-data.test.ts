/**
 * The Status page's local data and feed sections as rendered: a copy's age, a failed refresh's
 * reason beside the copy kept, a never-downloaded feed, and the IP database's licence and date.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { age, feedsSection, localDataSection } from "../../../src/intel/admin/local-data.ts";
import { iplocation } from "../../../src/intel/connectors/iplocation/index.ts";

const NOW = Date.parse("2026-11-27T12:00:00Z");

describe("Status page: local data and feeds", () => {
  it("says how old a copy is", () => {
    assert.equal(age("2026-11-27T06:00:00Z", NOW), "less than a day old");
    assert.equal(age("2026-11-20T06:00:00Z", NOW), "7 days old");
    assert.equal(age(undefined, NOW), "date unknown");
  });

  it("shows a failed refresh beside the copy kept, and a feed never downloaded", () => {
    const page = feedsSection(
      [
        {
          id: "tor-exits",
          name: "Tor exit nodes",
          url: "http://127.0.0.1/torbulkexitlist",
          entries: 1500,
          fetchedAt: "2026-11-20T06:00:00.000Z",
          checkedAt: "2026-11-21T06:00:00.000Z",
          error: "HTTP 500",
        },
        {
          id: "openphish",
          name: "OpenPhish community feed",
          url: "x",
          entries: 0,
          fetchedAt: null,
          checkedAt: null,
          error: "HTTP 403",
        },
      ],
      360,
    ).toString();
    assert.match(page, /refreshed every 360 min/);
    assert.match(page, /Tor exit nodes.*1500.*days old.*failed: HTTP 500<\/span> \(the copy held is kept\)/s);
    assert.match(page, /OpenPhish community feed.*none yet.*failed: HTTP 403<\/span><\/td>/s);
    assert.match(feedsSection([], 0).toString(), /never refreshed.*No copy yet/s);
  });

  it("names the IP database's data, licence, credit and date", () => {
    const page = localDataSection([iplocation]).toString();
    assert.match(page, /CC BY 4\.0: RouteViews.*DB-IP \(<a href="https:\/\/db-ip\.com\/">/s);
    assert.match(page, /CC0 1\.0/);
    assert.match(page, /<time datetime="20\d\d-/);
  });
});
