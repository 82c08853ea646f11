// Scope strings: "<object>:<read|write>" or "*". X:write grants X:read.

export const SCOPE_OBJECTS = [
  'action',
  'activity_log',
  'annotation',
  'batch_export',
  'cohort',
  'dashboard',
  'dashboard_template',
  'early_access_feature',
  'event',
  'event_definition',
  'experiment',
  'export',
  'feature_flag',
  'group',
  'insight',
  'query',
  'notebook',
  'organization',
  'organization_member',
  'person',
  'personal_api_key',
  'plugin',
  'project',
  'property_definition',
  'session_recording',
  'session_recording_playlist',
  'sharing_configuration',
  'subscription',
  'survey',
  'user',
  'webhook',
] as const;

export function isValidScope(scope: string): boolean {
  if (scope === '*') return true;
  const [object, action, ...rest] = scope.split(':');
  return (
    rest.length === 0 &&
    (action === 'read' || action === 'write') &&
    (SCOPE_OBJECTS as readonly string[]).includes(object)
  );
}

export function grants(held: readonly string[], required: string): boolean {
  if (held.includes('*') || held.includes(required)) return true;
  const [object, action] = required.split(':');
  return action === 'read' && held.includes(`${object}:write`);
}

/** The first required scope the key lacks, or null. */
export function firstMissingScope(held: readonly string[], required: readonly string[]): string | null {
  return required.find((scope) => !grants(held, scope)) ?? null;
}
