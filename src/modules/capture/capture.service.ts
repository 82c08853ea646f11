// A capture request from raw body to stored events: decode, find the project by its token, check
// every event, then store them all in one transaction with the activity entries of the merges they
// caused. Any error rejects the whole request. The definitions they show go to the process's buffer.
import type { Deps } from '../../deps.ts';
import { decodeCaptureBody } from '../../ingestion/decode-body.ts';
import { recordBatchDefinitions } from '../../ingestion/definitions.ts';
import { inRetriedTransaction, prepareEvents, processEvents } from '../../ingestion/ingest.ts';
import { eventOfItem, parseCapturePayload } from '../../ingestion/parse-capture.ts';
import { recordPersonMerges } from '../persons/person-activity.repository.ts';
import { teamOfProjectToken } from './project-token.ts';

export interface CaptureRequest {
  body: Buffer;
  contentType: string | undefined;
  query: Record<string, unknown>;
  /** The route's body limit, which also bounds the decompressed body. */
  limit: number;
  /** The client's address, recorded as each event's $ip when it has none. */
  ip?: string;
}

export async function captureEvents(deps: Deps, request: CaptureRequest): Promise<void> {
  const now = deps.clock.now();
  const body = await decodeCaptureBody(request.body, request.contentType, request.limit);
  const payload = parseCapturePayload(body, request.query);
  const team = await teamOfProjectToken(deps.db, payload.token);
  const events = payload.items.map((item, index) => eventOfItem(item, payload.attrPrefix(index)));
  const prepared = prepareEvents(events, {
    now,
    sentAt: payload.sentAt,
    attrPrefix: payload.attrPrefix,
    ip: request.ip,
  });
  if (prepared.length === 0) return;
  const seen = await inRetriedTransaction(deps.log, deps.db, async (trx, firstTry) => {
    const outcome = await processEvents(deps.log, trx, team.id, prepared, { optimistic: firstTry });
    await recordPersonMerges(trx, team, outcome.merges, null, deps.clock.now());
    return outcome.seen;
  });
  await recordBatchDefinitions(deps, deps.db, team.id, seen);
}
