/**
 * Which methods a path is served with, for the 405 answer and its `Allow` header (RFC 9110 §15.5.6).
 * Fastify's router answers an unserved method like an unknown path (404); FastAPI and DRF, whose
 * clients Loupe keeps, answer 405. Patterns are compiled once, when the first miss asks.
 */

type RouteRecord = { method: string; url: string };
type Compiled = { method: string; pattern: RegExp };

/** `/api/request/:id/` → a RegExp matching one concrete path; `*` matches the rest of it. */
function compile(url: string): RegExp {
  const parts = url.split("/").map((segment) => {
    if (segment === "*") return ".*";
    if (segment.startsWith(":")) return "[^/]+";
    return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\*$/, ".*");
  });
  return new RegExp(`^${parts.join("/")}$`);
}

export class AllowedMethods {
  #compiled: Compiled[] | null = null;
  readonly #routes: RouteRecord[];

  constructor(routes: RouteRecord[]) {
    this.#routes = routes;
  }

  /** The methods registered for `path` (query string ignored), sorted; empty when none is. */
  of(path: string): string[] {
    this.#compiled ??= this.#routes.map((r) => ({ method: r.method, pattern: compile(r.url) }));
    const bare = path.split("?", 1)[0] ?? path;
    const methods = new Set<string>();
    for (const route of this.#compiled) if (route.pattern.test(bare)) methods.add(route.method);
    return [...methods].sort();
  }
}
