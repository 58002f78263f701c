/**
 * What happens when a worker is done with a request: the batches it completes are marked
 * finished. Run after every job (also a retried one), so it is idempotent: a request still active
 * is skipped, and a batch is finished once.
 */

import type { Requests } from "../domain/requests.ts";
import type { Store } from "../store/db.ts";
import { ACTIVE_STATUSES } from "../store/requests.ts";
import { batchesFinishedBy } from "./batches.ts";

export async function afterRequest(
  services: { store: Store; requests: Requests },
  requestId: string,
): Promise<void> {
  const request = await services.requests.getRequest(requestId);
  if (!request || ACTIVE_STATUSES.includes(request.status)) return;
  await batchesFinishedBy(services, requestId);
}
