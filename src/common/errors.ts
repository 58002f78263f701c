/** The error model of both services: an HTTP status, a machine code and a human message. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, code: string, detail: string, extra?: Record<string, unknown>) {
    super(detail);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.extra = extra;
  }

  toBody(): ErrorBody {
    return { detail: this.message, code: this.code, ...this.extra };
  }
}

export interface ErrorBody {
  detail: string;
  code: string;
  [key: string]: unknown;
}

export const badRequest = (code: string, detail: string, extra?: Record<string, unknown>) =>
  new HttpError(400, code, detail, extra);

export const notFound = (detail = "Not found.") => new HttpError(404, "not_found", detail);

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
