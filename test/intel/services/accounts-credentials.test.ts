/** The account and credential rules every door (API, panel, CLI) shares, on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { readIntelConfig } from "../../../src/intel/config.ts";
import { connectorById } from "../../../src/intel/connectors/registry.ts";
import {
  AccountError,
  createAccount,
  issueApiKey,
  resetPassword,
  setAccountActive,
} from "../../../src/intel/services/accounts.ts";
import {
  addCredentialSet,
  CredentialsError,
  credentialProblem,
  failedItsTest,
  listCredentialSets,
  removeCredentialSet,
  testCredentialSet,
  tryCredentials,
  usableConnectors,
} from "../../../src/intel/services/credentials.ts";
import { authenticateKey, checkPassword } from "../../../src/intel/store/accounts.ts";
import type { Store } from "../../../src/intel/store/db.ts";
import { openSession, readSession } from "../../../src/intel/store/sessions.ts";
import { describeOnEachDatabase } from "../../helpers/databases.ts";
import { startFakeVirusTotal, VT_KEY } from "../../helpers/fake-virustotal.ts";

const vt = connectorById("virustotal")!;
const misp = connectorById("misp")!;
const hashlookup = connectorById("hashlookup")!;

describe("credential rules", () => {
  it("names missing fields, unknown fields and a url that is not http(s)", () => {
    assert.equal(credentialProblem(vt, {}), "VirusTotal needs api_key.");
    assert.match(credentialProblem(vt, { api_key: "k", apikey: "x" }) ?? "", /takes api_key, not apikey/);
    assert.equal(
      credentialProblem(misp, { api_key: "k", url: "ftp://m" }),
      "url must be an http(s) address.",
    );
    assert.equal(credentialProblem(misp, { api_key: "k", url: "https://misp.example.org" }), undefined);
    assert.match(credentialProblem(hashlookup, { api_key: "k" }) ?? "", /takes no credentials/);
  });

  it("refuses placeholders copied from examples, in every door (CLI, panel, API use this rule)", () => {
    const placeholders = "YOUR_VT_KEY your-api-key <key> {{API_KEY}} $ {VT_KEY} changeme CHANGE_ME xxx"
      .concat(" xxxxxxxx-xxxx **** 0000000000 api_key=… abc... key")
      .replace("$ {", "${")
      .split(" ");
    for (const api_key of placeholders)
      assert.match(credentialProblem(vt, { api_key }) ?? "", /is a placeholder, not a key/, api_key);
    for (const api_key of ["0123456789abcdef", "k", "xkey-3f9a", "secret-key-123", VT_KEY])
      assert.equal(credentialProblem(vt, { api_key }), undefined, api_key);
    // A url is an address, checked as one: only secrets are checked for placeholders.
    assert.equal(credentialProblem(misp, { api_key: "k3y", url: "https://misp.example.org" }), undefined);
    assert.match(credentialProblem(misp, { api_key: "<key>", url: "https://m" }) ?? "", /api_key "<key>"/);
  });
});

describeOnEachDatabase("account and credential services", (db) => {
  let store: Store;
  beforeEach(async () => {
    store = await db.store();
  });

  it("generates an admin's password only when none is given, and checks a given one", async () => {
    const made = await createAccount({ store }, { username: "gen", admin: true });
    assert.ok(made.generatedPassword && made.generatedPassword.length >= 16);
    assert.ok(await checkPassword(store.db, "gen", made.generatedPassword));
    const given = await createAccount(
      { store },
      {
        username: "given",
        password: "long enough",
        admin: true,
      },
    );
    assert.equal(given.generatedPassword, undefined);
    await assert.rejects(
      createAccount({ store }, { username: "empty", password: "", admin: true }),
      AccountError,
    );
  });

  it("gives regular users no password: none shown, none accepted, none reset", async () => {
    const user = await createAccount({ store }, { username: "colander", admin: false });
    assert.equal(user.generatedPassword, undefined);
    await assert.rejects(
      createAccount({ store }, { username: "typed", password: "long enough", admin: false }),
      /Regular users have no password: they use API keys/,
    );
    await assert.rejects(resetPassword({ store }, user.user.id, "long enough"), /have no password/);
    await assert.rejects(resetPassword({ store }, 99_999), /No user #99999/);
    const { key } = await issueApiKey({ store }, { id: user.user.id });
    assert.equal((await authenticateKey(store.db, key))?.username, "colander");
  });

  it("refuses self-deactivation; deactivation and password resets end panel sessions", async () => {
    const { user: admin } = await createAccount(
      { store },
      {
        username: "boss",
        password: "password1",
        admin: true,
      },
    );
    await assert.rejects(
      setAccountActive({ store }, admin.id, admin.id, false),
      /cannot deactivate yourself/,
    );
    const session = await openSession(store.db, admin.id, 60_000);
    await resetPassword({ store }, admin.id, "password2");
    assert.equal(await readSession(store.db, session.id), undefined);
    const again = await openSession(store.db, admin.id, 60_000);
    const { user: other } = await createAccount(
      { store },
      {
        username: "other",
        password: "password1",
        admin: true,
      },
    );
    await setAccountActive({ store }, other.id, admin.id, false);
    assert.equal(await readSession(store.db, again.id), undefined);
  });

  it("issues keys by username or id, and names the user that does not exist", async () => {
    const { key } = await issueApiKey({ store }, { username: "given" });
    assert.equal((await authenticateKey(store.db, key))?.username, "given");
    await assert.rejects(issueApiKey({ store }, { username: "nobody" }), /No user "nobody"/);
    await assert.rejects(issueApiKey({ store }, { id: 99_999 }), /No user #99999/);
  });

  it("stores only valid sets, lists them masked, and counts a vendor as usable once it has one", async () => {
    await assert.rejects(addCredentialSet({ store }, vt, { api_key: "" }), CredentialsError);
    assert.deepEqual(
      (await usableConnectors({ store }, [vt, hashlookup])).map((c) => c.id),
      ["hashlookup"],
    );
    await addCredentialSet({ store }, vt, { api_key: "secret-key-123" });
    const [set] = await listCredentialSets({ store }, "virustotal");
    assert.deepEqual(set?.masked, { api_key: "secr…" });
    assert.deepEqual(
      (await usableConnectors({ store }, [vt, hashlookup])).map((c) => c.id),
      ["virustotal", "hashlookup"],
    );
  });

  it("keeps each set's last test (a new test replaces it), checks typed fields without storing them", async () => {
    const fake = await startFakeVirusTotal();
    try {
      const config = {
        ...readIntelConfig({ INTEL_VENDOR_RETRIES: "0" }),
        vendorUrls: { virustotal: fake.url },
      };
      const good = await addCredentialSet({ store }, vt, { api_key: VT_KEY });
      const bad = await addCredentialSet({ store }, vt, { api_key: "refused-key" });
      assert.equal((await testCredentialSet({ store }, vt, bad, config))?.ok, false);
      assert.equal((await testCredentialSet({ store }, vt, good, config))?.ok, true);
      assert.equal(await testCredentialSet({ store }, vt, 99_999, config), undefined);
      const byId = new Map((await listCredentialSets({ store }, "virustotal")).map((s) => [s.id, s]));
      assert.equal(byId.get(bad)?.last_check?.ok, false);
      assert.match(byId.get(bad)?.last_check?.message ?? "", /invalid_credentials/);
      assert.ok(failedItsTest(byId.get(bad)!));
      assert.equal(byId.get(good)?.last_check?.ok, true);

      const before = (await listCredentialSets({ store })).length;
      await assert.rejects(tryCredentials(vt, { api_key: "" }, config), CredentialsError);
      assert.equal((await tryCredentials(vt, { api_key: VT_KEY }, config)).ok, true);
      assert.equal((await listCredentialSets({ store })).length, before, "a tried key is not stored");

      await removeCredentialSet({ store }, bad);
      const again = await addCredentialSet({ store }, vt, { api_key: "another" });
      const fresh = (await listCredentialSets({ store }, "virustotal")).find((s) => s.id === again);
      assert.equal(fresh?.last_check, null, "a removed set's test does not stick to a new one");
    } finally {
      await fake.close();
    }
  });
});
