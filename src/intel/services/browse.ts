/** What the panel browses: recent requests, entity search and one entity's surroundings (read-only). */
export { entityDetail, recentRequests, searchEntities } from "../store/browse.ts";
export { parseAttributes } from "../store/graph.ts";
