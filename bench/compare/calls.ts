/** The requests of one `bench compare` load, for the tools that drive a single server (profile, drive). */
import { type MultipartBody, multipartBody } from "../lib/multipart.ts";
import { phonePhotos, ruleCases, smallImages } from "./inputs.ts";

export async function callsFor(load: string): Promise<Array<{ path: string; body: MultipartBody }>> {
  if (load === "rules")
    return ruleCases().map((c) => ({
      path: "/analyzer/rulematch",
      body: multipartBody(c.sample, "s.bin", { rules: c.rules }),
    }));
  const images = load === "photos" ? await phonePhotos() : await smallImages();
  const query = load === "photos" ? "width=256&height=256&strategy=fit" : "width=200&height=150&strategy=fit";
  return images.map((img) => ({
    path: `/converter/thumbnail?${query}`,
    body: multipartBody(img.bytes, img.name),
  }));
}
