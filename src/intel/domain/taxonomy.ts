/**
 * The entity taxonomy shared with Colander (super types, types, icons, value formats). Copied into
 * the project as taxonomy.json; lookups are case-insensitive.
 */
import { readFileSync } from "node:fs";

interface RawType {
  short_name: string;
  name: string;
  nf_icon?: string;
  regex?: string;
  value_example?: string;
}
interface RawSuperType {
  short_name: string;
  name: string;
  types: RawType[];
}

export interface TypeInfo {
  superType: string;
  shortName: string;
  name: string;
  icon: string;
  description: string;
  pattern: RegExp | null;
  example: string | null;
}

export interface SuperTypeInfo {
  shortName: string;
  name: string;
  types: TypeInfo[];
}

const raw = JSON.parse(readFileSync(new URL("./taxonomy.json", import.meta.url), "utf8")) as {
  super_types: RawSuperType[];
};

export const SUPER_TYPES: SuperTypeInfo[] = raw.super_types.map((st) => ({
  shortName: st.short_name,
  name: st.name,
  types: st.types.map((t) => ({
    superType: st.short_name,
    shortName: t.short_name,
    name: t.name,
    icon: t.nf_icon ?? "",
    description: t.name,
    pattern: t.regex ? new RegExp(t.regex) : null,
    example: t.value_example ?? null,
  })),
}));

export function findSuperType(name: string): SuperTypeInfo | undefined {
  const wanted = name.trim().toUpperCase();
  return SUPER_TYPES.find((s) => s.shortName === wanted);
}

export function findType(superType: string, type: string): TypeInfo | undefined {
  const wanted = type.trim().toUpperCase();
  return findSuperType(superType)?.types.find((t) => t.shortName === wanted);
}

/** Null when the value fits the type's format, else a message saying what is expected. */
export function checkValue(type: TypeInfo, value: string): string | null {
  if (value.trim() === "") return "The value is empty.";
  if (value.length > 2048) return "The value is longer than 2048 characters.";
  if (type.pattern && !type.pattern.test(value)) {
    return `"${value}" is not a valid ${type.name}${type.example ? ` (for example ${type.example})` : ""}.`;
  }
  return null;
}
