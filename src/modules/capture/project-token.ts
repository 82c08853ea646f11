// The project token (phc_…) that capture and the SDKs' configuration endpoints are authenticated
// by: public, sent by every web page, so it only names a project and grants nothing else.
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { findTeamByToken } from '../projects/projects.repository.ts';

const HINT =
  'The project API key (phc_…) is the project token `herd bootstrap` printed (project_api_key), or the api_token of the project in GET /api/projects/.';

const missingApiKey = () =>
  new AppError(401, 'authentication_error', 'missing_api_key', `API key not provided. ${HINT}`);
const invalidApiKey = () =>
  new AppError(401, 'authentication_error', 'invalid_api_key', `Project API key invalid. ${HINT}`);

// PostHog's shape check: at most 64 ASCII characters, and never a personal key.
function wellFormedToken(token: string): boolean {
  return token.length <= 64 && /^[\x21-\x7e]+$/.test(token) && !token.startsWith('phx_');
}

/** The project of a token: none at all is 401 missing_api_key, a malformed or unknown one 401 invalid_api_key. */
export async function teamOfProjectToken(db: Db, raw: string | null | undefined): Promise<TeamRow> {
  const token = raw?.trim() ?? '';
  if (token === '') throw missingApiKey();
  if (!wellFormedToken(token)) throw invalidApiKey();
  const team = await findTeamByToken(db, token);
  if (!team) throw invalidApiKey();
  return team;
}
