/**
 * HTTP clients of a files service seen from distinct remote addresses (127.0.0.x all reach the
 * loopback server on Linux): the service's fair shares (YARA workers, extraction processes) are
 * per remote address.
 */
import { Agent, request } from "undici";
import { type MultipartBody, multipartBody } from "../helpers/multipart-body.ts";

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
  /**
   * POSTs a body built beforehand: sent as it is, never copied (copying 48 MB held a client's event
   * loop for seconds on a loaded machine, long enough for the service's body idle limit).
   */
  sendPrepared(url: string, upload: MultipartBody, signal?: AbortSignal): Promise<Response>;
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
  const sendPrepared: AddressedClient["sendPrepared"] = async (url, upload, signal) => {
    const res = await request(url, {
      method: "POST",
      body: upload.body,
      headers: { "content-type": upload.contentType },
      dispatcher,
      ...(signal ? { signal } : {}),
    });
    const type = res.headers["content-type"];
    return new Response(await res.body.arrayBuffer(), {
      status: res.statusCode,
      headers: typeof type === "string" ? { "content-type": type } : {},
    });
  };
  const send: AddressedClient["send"] = (url, file, filename, fields, signal) =>
    sendPrepared(url, multipartBody(Buffer.from(file), filename, fields), signal);
  return {
    localAddress,
    send,
    sendPrepared,
    async post(url, file, fields, signal) {
      const res = await send(url, file, "c.bin", fields, signal);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () => dispatcher.close(),
  };
}
