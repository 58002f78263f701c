/** The result schema of indicator extraction, shared by `/analyzer/iocs` and the extractor's `extra.iocs`. */
import { Type } from "typebox";
import { IOC_KINDS } from "./types.ts";

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const indicatorSchema = Type.Object({
  super_type: Type.Literal("OBSERVABLE", { description: "Intel taxonomy super type." }),
  type: Type.String({ description: "Intel taxonomy type (DOMAIN, IPV4, URL, MD5…): send to intel as is." }),
  kind: Type.Union(
    IOC_KINDS.map((k) => Type.Literal(k)),
    { description: "Finer than `type`: bitcoin, ethereum, monero and registry_key are GENERIC there." },
  ),
  value: Type.String({ description: "Refanged and normalised." }),
  defanged: Type.Boolean({ description: "True when the text had it defanged (hxxp, [.], [at])." }),
  occurrences: Type.Integer({ description: "Times it was seen." }),
  locations: Type.Array(
    Type.Object({
      part: Type.String({ description: '"title", "content" or the metadata path ("extra.mail.from.0").' }),
      page: Type.Union([nullableString], { description: "Archive entry or e-mail attachment, when known." }),
      offset: Type.Integer({ description: "In UTF-16 code units of the part's text as extracted." }),
      path: Type.Optional(
        Type.String({
          description:
            "The node of the file's tree whose text holds it (`invoice.eml › invoice.zip › notes.txt`).",
        }),
      ),
    }),
    { description: "The first FILES_IOC_MAX_LOCATIONS places." },
  ),
});

export const iocsAnalysis = Type.Object({
  indicators: Type.Array(indicatorSchema),
  truncated: Type.Union([Type.Literal("max_chars"), Type.Literal("max_indicators"), Type.Null()], {
    description: "Which limit cut the scan (FILES_IOC_MAX_CHARS, FILES_IOC_MAX_INDICATORS), or null.",
  }),
  scanned_chars: Type.Integer(),
});
