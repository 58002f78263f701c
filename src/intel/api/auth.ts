/**
 * `Authorization: Token <key>` on every /api/ route; inactive users and revoked keys are refused
 * (the key's row comes from the read cache, read again after any commit).
 * The key's hash is kept on the request for the per-key rate limit.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../../common/errors.ts";
import { apiKeyHashIfWellFormed, authenticateApiKeyHash, type UserRow } from "../services/accounts.ts";
import type { IntelServices, ReadView } from "../services/index.ts";

export function tokenAuth(services: Pick<IntelServices, "store" | "reads">) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const header = req.headers.authorization;
    if (!header)
      throw new HttpError(401, "not_authenticated", "Authentication credentials were not provided.");
    const m = /^Token\s+(\S+)$/i.exec(header);
    const view = await services.reads.view();
    // Hashed once per request: the key check and the per-key limits share it.
    const hash = m?.[1] ? apiKeyHashIfWellFormed(m[1]) : undefined;
    const user = hash ? await authenticateApiKeyHash(services, hash, view) : undefined;
    if (!user || !hash) throw new HttpError(401, "invalid_token", "Invalid token.");
    req.user = user;
    req.readView = view;
    // Per-key limits count by the key's hash: the key itself is kept nowhere.
    req.apiKeyHash = hash;
  };
}

declare module "fastify" {
  interface FastifyRequest {
    user?: UserRow;
    /** SHA-256 of the API key that authenticated this request. */
    apiKeyHash?: string;
    /** The read cache's view taken by the key check: the route's reads share its stamp. */
    readView?: ReadView;
  }
}
