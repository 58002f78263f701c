/** A Buffer over the same memory as `bytes` (a message's Uint8Array, a typed array of pixels): no copy. */
export function bufferView(bytes: ArrayBufferView): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
