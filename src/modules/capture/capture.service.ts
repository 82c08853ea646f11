// A capture request from raw body to stored events: decode, find the project by its token, check
// every event, then store them all in one transaction with the activity entries of the merges they
// caused. Any error rejects the whole request.
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import { decodeCaptureBody } from '../../ingestion/decode-body.ts';
import { inRetriedTransaction, prepareEvents, processEvents } from '../../ingestion/ingest.ts';
import { eventOfItem, parseCapturePayload } from '../../ingestion/parse-capture.ts';
import { recordPersonMerges } from '../persons/person-activity.repository.ts';
import { findTeamByToken } from '../projects/projects.repository.ts';

export interface CaptureRequest {
  body: Buffer;
  contentType: string | undefined;
  query: Record<string, unknown>;
  /** The route's body limit, which also bounds the decompressed body. */
  limit: number;
  /** The client's address, recorded as each event's $ip when it has none. */
  ip?: string;
}

const HINT = 'The project API key (phc_…) is the project token `herd bootstrap` printed (project_api_key), or the api_token of the project in GET /api/projects/.';

const missingApiKey = () =>
  new AppError(401, 'authentication_error', 'missing_api_key', `API key not provided. ${HINT}`);
const invalidApiKey = () =>
  new AppError(401, 'authentication_error', 'invalid_api_key', `Project API key invalid. ${HINT}`);

// PostHog's shape check: at most 64 ASCII characters, and never a personal key.
function wellFormedToken(token: string): boolean {
  return token.length <= 64 && /^[\x21-\x7e]+$/.test(token) && !token.startsWith('phx_');
}

export async function captureEvents(deps: Deps, request: CaptureRequest): Promise<void> {
  const now = deps.clock.now();
  const body = await decodeCaptureBody(request.body, request.contentType, request.limit);
  const payload = parseCapturePayload(body, request.query);
  const token = payload.token?.trim() ?? '';
  if (token === '') throw missingApiKey();
  if (!wellFormedToken(token)) throw invalidApiKey();
  const team = await findTeamByToken(deps.db, token);
  if (!team) throw invalidApiKey();
  const events = payload.items.map((item, index) => eventOfItem(item, payload.attrPrefix(index)));
  const prepared = prepareEvents(events, { now, sentAt: payload.sentAt, attrPrefix: payload.attrPrefix, ip: request.ip });
  if (prepared.length === 0) return;
  await inRetriedTransaction(deps.log, deps.db, async (trx) => {
    const { merges } = await processEvents(deps.log, trx, team.id, prepared);
    await recordPersonMerges(trx, team, merges, null, deps.clock.now());
  });
}
