/**
 * What happens when a worker is done with a request: the webhooks waiting for it are told, and the
 * batches it completes are marked finished (and their webhooks told). Run after every job (also a
 * retried one), so it is idempotent: a request still active is skipped, a batch is finished once,
 * and a delivery is recorded once per webhook, event and target.
 */
import type { Requests } from "../domain/requests.ts";
import type { Store } from "../store/db.ts";
import { ACTIVE_STATUSES } from "../store/requests.ts";
import { batchesFinishedBy } from "./batches.ts";
import { batchFinished, requestFinished } from "./webhooks.ts";

export async function afterRequest(
  services: { store: Store; requests: Requests },
  requestId: string,
): Promise<void> {
  const request = await services.requests.getRequest(requestId);
  if (!request || ACTIVE_STATUSES.includes(request.status)) return;
  await requestFinished(services, request);
  for (const batchId of await batchesFinishedBy(services, requestId)) await batchFinished(services, batchId);
}
