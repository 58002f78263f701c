/**
 * The taxonomy as the doors show it: Threatr's shapes for the API's `types/` routes, and the types
 * the enabled connectors can look up (the API's `types/supported/` and the panel's Investigate form).
 */
import { supports } from "../connectors/registry.ts";
import type { Connector } from "../connectors/types.ts";
import { superTypeJson, typeJson } from "../domain/document.ts";
import { SUPER_TYPES, type SuperTypeInfo } from "../model/taxonomy.ts";

/** Every super type with only the types at least one of `connectors` looks up (none left: left out). */
export function lookableTypes(connectors: Connector[]): SuperTypeInfo[] {
  return SUPER_TYPES.map((st) => ({
    ...st,
    types: st.types.filter((t) =>
      connectors.some((c) => supports(c, { superType: st.shortName, type: t.shortName })),
    ),
  })).filter((st) => st.types.length > 0);
}

/** Python's str.title() on a short name: Colander upper-cases this name to find the key in `types`. */
const titled = (shortName: string) =>
  shortName.toLowerCase().replace(/(^|[^a-z])([a-z])/g, (_, p, c) => p + c.toUpperCase());

/**
 * Threatr's `types/supported` shape: `name` is the titled short name (Colander's form uses
 * `name.upper()` as the key), each type `{id: short name, name and label: the taxonomy's name}`.
 */
export function typesJson(superTypes: SuperTypeInfo[]) {
  const types: Record<string, Array<{ id: string; name: string; label: string }>> = {};
  const supers: Array<{ name: string; short_name: string }> = [];
  for (const st of superTypes) {
    if (st.types.length === 0) continue;
    supers.push({ name: titled(st.shortName), short_name: st.shortName });
    types[st.shortName] = st.types
      .map((t) => ({ id: t.shortName, name: t.name, label: t.name }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }
  return { super_types: supers, types };
}

/** Threatr's `types/` (FullEntitySuperTypeSerializer): every super type with its `sub_types`. */
export function taxonomyJson() {
  return SUPER_TYPES.map((st) => ({
    ...superTypeJson(st.shortName),
    svg_icon: null,
    sub_types: st.types.map((t) => typeJson(st.shortName, t.shortName)),
  }));
}
