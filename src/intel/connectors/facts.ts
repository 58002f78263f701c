/** Vendor facts as string attributes, the way the knowledge graph stores them: empty values are left out. */
export function facts(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== "") out[key] = String(value);
  }
  return out;
}
