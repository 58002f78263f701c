/** A mistake in the command line: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
