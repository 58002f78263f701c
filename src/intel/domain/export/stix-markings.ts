/**
 * STIX data markings: TLP with the official TLP 2.0 marking definitions (OASIS's TLP 2.0
 * extension: fixed ids that every STIX tool knows), PAP as a statement marking ("PAP:AMBER")
 * with a stable id, since STIX defines no PAP marking.
 */
import { loupeUuid } from "./ids.ts";

export type StixObject = { type: string; id: string } & Record<string, unknown>;

const TLP2_EXTENSION = "extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d";

const TLP2_IDS: Record<string, string> = {
  CLEAR: "marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487",
  GREEN: "marking-definition--bab4a63c-aed9-4cf5-a766-dfca5abac2bb",
  AMBER: "marking-definition--55d920b0-5e8b-4f79-9ee9-91f868d9b421",
  "AMBER+STRICT": "marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003",
  RED: "marking-definition--e828b379-4e03-4974-9ac4-e53a884c97c1",
};

/** The TLP 2.0 marking definition of a level (CLEAR, GREEN, AMBER, AMBER+STRICT, RED). */
export function tlpMarking(level: string): StixObject | undefined {
  const id = TLP2_IDS[level];
  if (!id) return undefined;
  return {
    type: "marking-definition",
    spec_version: "2.1",
    id,
    created: "2022-10-01T00:00:00.000Z",
    name: `TLP:${level}`,
    extensions: {
      [TLP2_EXTENSION]: { extension_type: "property-extension", tlp_2_0: level.toLowerCase() },
    },
  };
}

/** A statement marking for a PAP level (CLEAR, GREEN, AMBER, RED). */
export function papMarking(level: string, createdBy: string): StixObject {
  return {
    type: "marking-definition",
    spec_version: "2.1",
    id: `marking-definition--${loupeUuid("pap", level)}`,
    created: "2022-10-01T00:00:00.000Z",
    created_by_ref: createdBy,
    name: `PAP:${level}`,
    definition_type: "statement",
    definition: { statement: `PAP:${level}` },
  };
}
