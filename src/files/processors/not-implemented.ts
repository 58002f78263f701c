import { HttpError } from "../../common/errors.ts";

/** Used by analyzers whose engine has not landed yet: the route and its schema exist, the work does not. */
export function notImplemented(name: string): never {
  throw new HttpError(501, "not_implemented", `The ${name} analyzer is not available in this build yet.`);
}
