/**
 * HTTP clients of a files service seen from distinct remote addresses (127.0.0.x all reach the
 * loopback server on Linux): the service's fair shares (YARA workers, extraction processes) are
 * per remote address.
 */
import { Agent, fetch } from "undici";
import { multipartBody } from "../helpers/multipart-body.ts";

export interface AddressedClient {
  /** The remote address the service sees. */
  localAddress: string;
  /** POSTs `file` (named `filename`) and `fields` as multipart to `url`; resolves with the response. */
  send(
    url: string,
    file: Uint8Array | string,
    filename: string,
    fields: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response>;
  /** Like `send`, and parses the answer as JSON: its status and body. */
  post(
    url: string,
    file: Uint8Array | string,
    fields: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export function clientFrom(localAddress: string): AddressedClient {
  const dispatcher = new Agent({ localAddress });
  const send: AddressedClient["send"] = async (url, file, filename, fields, signal) => {
    const upload = multipartBody(Buffer.from(file), filename, fields);
    const res = await fetch(url, {
      method: "POST",
      body: upload.body,
      headers: { "content-type": upload.contentType },
      dispatcher,
      ...(signal ? { signal } : {}),
    });
    return res as unknown as Response;
  };
  return {
    localAddress,
    send,
    async post(url, file, fields, signal) {
      const res = await send(url, file, "c.bin", fields, signal);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () => dispatcher.close(),
  };
}
