/**
 * HTTP clients of a files service seen from distinct remote addresses (127.0.0.x all reach the
 * loopback server on Linux): the service's fair share of YARA workers is per remote address.
 */
import { Agent, FormData, fetch } from "undici";

export interface AddressedClient {
  /** POSTs `file` and `fields` as multipart to `url`; resolves with the status and parsed body. */
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
  return {
    async post(url, file, fields, signal) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append("file", new Blob([typeof file === "string" ? file : new Uint8Array(file)]), "c.bin");
      const res = await fetch(url, { method: "POST", body: form, dispatcher, ...(signal ? { signal } : {}) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () => dispatcher.close(),
  };
}
