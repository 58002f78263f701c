/**
 * The entity taxonomy shared with Colander (super types, types, icons, value formats). Copied into
 * the project as taxonomy.json; lookups are case-insensitive. Value formats run on RE2 (re2js):
 * matching time is linear in the value's length whatever the pattern, so no value can freeze a service.
 */

import { readFileSync } from "node:fs";
import { RE2JS } from "re2js";
import { Lru } from "../../common/lru.ts";
import { CONTROL, canonicalValue, normaliseValue, valueCap } from "./taxonomy-values.ts";

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
  /** The value's format, matched by a linear-time engine. */
  pattern: RE2JS | null;
  /** Longest value accepted (after normalisation). */
  maxLength: number;
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
    pattern: t.regex ? RE2JS.compile(t.regex) : null,
    maxLength: valueCap(t.short_name),
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

/** What a raw value became: the stored spelling, or why it cannot be a value of the type. */
export type ValueCheck = { value: string } | { problem: string; code: "invalid_value" | "value_too_long" };

/** Bounds the work done on a raw value before its type's own cap applies (defanging only shrinks). */
const RAW_MAX = 4096;

/**
 * Recent answers of checkValue per type: the same few subjects are asked again and again (Colander
 * polls), and normalising (refanging, IDNA, the type's RE2 pattern) was 4 % of a cached answer's
 * CPU. Short values only, a bounded number per type: the memory stays small whatever is sent.
 */
const checked = new WeakMap<TypeInfo, Lru<Readonly<ValueCheck>>>();
const MEMO_VALUE_MAX = 256;
const MEMO_ENTRIES = 1000;

/** The value as Loupe stores it (normalised, see taxonomy-values.ts), or what is wrong with it. */
export function checkValue(type: TypeInfo, raw: string): Readonly<ValueCheck> {
  if (raw.length > MEMO_VALUE_MAX) return checkValueNow(type, raw);
  let memo = checked.get(type);
  if (!memo) {
    memo = new Lru();
    checked.set(type, memo);
  }
  let result = memo.get(raw);
  if (!result) {
    result = checkValueNow(type, raw);
    memo.set(raw, result, MEMO_ENTRIES);
  }
  return result;
}

function checkValueNow(type: TypeInfo, raw: string): ValueCheck {
  if (raw.length > RAW_MAX) return tooLong(type);
  // Control characters are never part of a name, an address or a hash. Checked before normalising:
  // the URL parser behind DOMAIN, HOSTNAME, EMAIL and URL drops tabs and line breaks, and would
  // silently make `exa\nmple.org` (two values, or a paste mistake) into example.org.
  if (CONTROL.test(raw.trim()))
    return {
      problem:
        "The value contains a line break, a tab or another control character: send one value, without them (they are refused, not removed).",
      code: "invalid_value",
    };
  const value = normaliseValue(type.shortName, raw);
  if (value === "") return { problem: "The value is empty.", code: "invalid_value" };
  if (value.length > type.maxLength) return tooLong(type);
  if (type.pattern && !type.pattern.test(value)) {
    const shown = raw.trim().length > 80 ? `${raw.trim().slice(0, 80)}…` : raw.trim();
    const example = type.example ? ` (for example ${type.example})` : "";
    return { problem: `"${shown}" is not a valid ${type.name}${example}.`, code: "invalid_value" };
  }
  return { value: canonicalValue(type.shortName, value) };
}

function tooLong(type: TypeInfo): ValueCheck {
  return {
    problem: `A ${type.name} is at most ${type.maxLength} characters long.`,
    code: "value_too_long",
  };
}
