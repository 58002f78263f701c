/**
 * How a multipart parser's error is read for both services (src/common/multipart.ts): by its code,
 * else by a message that speaks of the body, and anything else is not a fault of the body.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { multipartFault } from "../../src/common/multipart.ts";

const coded = (code: string) => Object.assign(new Error("x"), { code });

describe("multipartFault", () => {
  it("reads the parser's codes", () => {
    assert.deepEqual(multipartFault(coded("FST_REQ_FILE_TOO_LARGE")), { kind: "file_too_large" });
    assert.deepEqual(multipartFault(coded("FST_FILES_LIMIT")), { kind: "too_many_files" });
    assert.deepEqual(multipartFault(coded("FST_PARTS_LIMIT")), { kind: "too_many_fields" });
    assert.deepEqual(multipartFault(coded("FST_PROTO_VIOLATION")), { kind: "invalid_multipart" });
    assert.deepEqual(multipartFault(coded("ECONNRESET")), { kind: "upload_aborted" });
  });

  it("keeps the message of a malformed body that has no code", () => {
    assert.deepEqual(multipartFault(new Error("Unexpected end of form")), {
      kind: "invalid_multipart",
      message: "Unexpected end of form",
    });
  });

  it("leaves any other error alone, whatever its code is called", () => {
    assert.equal(multipartFault(new Error("disk full")), undefined);
    assert.equal(multipartFault(coded("constructor")), undefined);
    assert.equal(multipartFault(coded("ENOSPC")), undefined);
  });
});
