import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { hashlookup } from "../../../src/intel/connectors/hashlookup/index.ts";
import { normalizeHashlookup } from "../../../src/intel/connectors/hashlookup/normalize.ts";
import { fixture as loadFixture, vendorContext } from "../../helpers/connectors.ts";
import { type SimpleFake, startFakeVendor } from "../../helpers/fake-vendor.ts";

const fixture = (name: string) => loadFixture("hashlookup", name);
const SHA1 = "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e";
const subject = { superType: "OBSERVABLE", type: "SHA1", value: SHA1 };

describe("hashlookup connector", () => {
  it("normalizes a known file: trust, product, other hashes, parent packages", () => {
    const fragment = normalizeHashlookup(fixture("found"), subject);
    assert.deepEqual(fragment.entities[0], {
      superType: "OBSERVABLE",
      type: "SHA1",
      name: SHA1,
      attributes: {
        known_file: "true",
        hashlookup_trust: "100",
        file_name: "./usr/bin/ls",
        size: "142144",
        mimetype: "application/x-pie-executable",
        source: "NSRL",
        ssdeep: "3072:abcdEFGH:ijklMNOP",
        tlsh: "T1ABCDEF0123456789",
        product: "Debian GNU/Linux 12",
        parent_count: "2",
      },
    });
    assert.deepEqual(
      fragment.entities.slice(1).map((e) => `${e.type}:${e.name}`),
      [
        "MD5:a7c0e2d4b9f3c1e8d6a5b4c3d2e1f0a9",
        "SHA256:c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2",
        "SHA1:2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f",
      ],
    );
    assert.deepEqual(
      fragment.relations.map((r) => `${r.name}->${r.to.type}`),
      ["same file as->MD5", "same file as->SHA256", "contained in->SHA1"],
    );
    assert.deepEqual(fragment.entities[3]?.attributes, { package: "coreutils 9.1-1" });
    assert.deepEqual(fragment.events, []);
  });

  it("tolerates an odd answer, and refuses one that names no file hash", () => {
    const f = normalizeHashlookup({ parents: [{}], "SHA-1": SHA1.toUpperCase(), MD5: null }, subject);
    assert.equal(f.entities.length, 1);
    for (const garbage of [{}, "a string", [1, 2], { parents: [{}], "SHA-1": null }, { MD5: 42 }])
      assert.throws(() => normalizeHashlookup(garbage, subject), JSON.stringify(garbage));
  });

  describe("fetch", () => {
    let fake: SimpleFake;
    before(async () => {
      fake = await startFakeVendor(
        { [`/lookup/sha1/${SHA1}`]: { body: fixture("found") } },
        fixture("not_found"),
      );
    });
    after(() => fake.close());
    const ctx = () => vendorContext(fake.url);

    it("asks the route of the hash type, lower-cased, without credentials", async () => {
      const raw = await hashlookup.fetch({ ...subject, value: SHA1.toUpperCase() }, {}, ctx());
      assert.equal((raw as { FileName: string }).FileName, "./usr/bin/ls");
      assert.equal(fake.calls.at(-1)?.url, `/lookup/sha1/${SHA1}`);
      assert.equal(fake.calls.at(-1)?.headers.authorization, undefined);
    });

    it("reads 404 as not known (null), not as an error", async () => {
      assert.equal(
        await hashlookup.fetch({ superType: "OBSERVABLE", type: "MD5", value: "0".repeat(32) }, {}, ctx()),
        null,
      );
      assert.equal(fake.calls.at(-1)?.url, `/lookup/md5/${"0".repeat(32)}`);
    });
  });
});
