/** Schemas shared by the API's route files. */
import { Type } from "typebox";

/** Every 4xx/5xx answer: `{detail, code}` and sometimes more (errors, rejected…). */
export const ErrorBody = Type.Object(
  { detail: Type.String(), code: Type.String() },
  { additionalProperties: true },
);
