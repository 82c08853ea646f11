import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVERYTHING } from '../../db/changes.ts';
import type { ApiKeyRow, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';
import { AccessCache } from './access-cache.ts';

const at = new Date('2026-01-01T00:00:00Z');
const user = (id: number) => ({ id, is_active: true }) as UserRow;
const key = (id: string, userId: number) =>
  ({
    id,
    user_id: userId,
    secure_value: id,
    scopes: ['*'],
    scoped_organizations: null,
    scoped_teams: null,
    last_used_at: at,
  }) as unknown as ApiKeyRow;
const organization = (id: string) => ({ id, name: id, created_at: at, updated_at: at }) as OrganizationRow;
const membership = (organizationId: string, userId: number) =>
  ({
    organization_id: organizationId,
    id: `m${userId}`,
    user_id: userId,
    level: 8,
    joined_at: at,
    updated_at: at,
  }) as MembershipRow;
const project = (id: number, organizationId: string) =>
  ({ id, organization_id: organizationId, name: `p${id}` }) as TeamRow;
const target = (projectId: number, organizationId: string, userId: number) => ({
  project: project(projectId, organizationId),
  organization: organization(organizationId),
  membership: membership(organizationId, userId),
});

function liveCache(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let now = 0;
  const cache = new AccessCache({ ...options, now: () => now });
  cache.live(true);
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('access cache', () => {
  it('keeps an actor and a target until its lifetime ends', () => {
    const { cache, advance } = liveCache({ ttlMs: 1000 });
    cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, cache.changes);
    cache.keepProject(1, 10, target(10, 'o1', 1), cache.changes);
    advance(999);
    assert.equal(cache.actor('d1')?.key.id, 'k1');
    assert.equal(cache.project(1, 10)?.project.id, 10);
    advance(1);
    assert.equal(cache.actor('d1'), undefined);
    assert.equal(cache.project(1, 10), undefined);
  });

  it('drops what a change names, and only that', () => {
    const { cache } = liveCache();
    cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, cache.changes);
    cache.keepActor('d2', { user: user(2), key: key('k2', 2) }, cache.changes);
    cache.keepProject(1, 10, target(10, 'o1', 1), cache.changes);
    cache.keepProject(2, 20, target(20, 'o2', 2), cache.changes);
    cache.keepOrganization(2, 'o1', { organization: organization('o1'), membership: null }, cache.changes);

    cache.changed('user:1');
    assert.equal(cache.actor('d1'), undefined);
    assert.equal(cache.project(1, 10), undefined);
    assert.equal(cache.actor('d2')?.key.id, 'k2');
    assert.equal(cache.organization(2, 'o1')?.organization.id, 'o1');

    cache.changed('org:o1');
    assert.equal(cache.organization(2, 'o1'), undefined);
    assert.equal(cache.project(2, 20)?.project.id, 20);

    cache.changed(EVERYTHING);
    assert.deepEqual(cache.sizes, { actors: 0, projects: 0, organizations: 0 });
  });

  it('does not keep an answer read before a change that came while it was read', () => {
    const { cache } = liveCache();
    const since = cache.changes;
    cache.changed('user:99');
    cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, since);
    assert.equal(cache.actor('d1'), undefined);
    cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, cache.changes);
    assert.equal(cache.actor('d1')?.key.id, 'k1');
  });

  it('keeps nothing while changes could be missed, and forgets everything when they could have been', () => {
    const { cache } = liveCache();
    cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, cache.changes);
    cache.live(false);
    assert.equal(cache.actor('d1'), undefined);
    cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, cache.changes);
    assert.equal(cache.sizes.actors, 0);
    cache.live(true);
    assert.equal(cache.actor('d1'), undefined);
  });

  it('holds at most its bound, the oldest leaving first', () => {
    const { cache } = liveCache({ maxEntries: 3 });
    for (let n = 1; n <= 5; n++) cache.keepActor(`d${n}`, { user: user(n), key: key(`k${n}`, n) }, cache.changes);
    assert.equal(cache.sizes.actors, 3);
    assert.equal(cache.actor('d1'), undefined);
    assert.equal(cache.actor('d2'), undefined);
    assert.equal(cache.actor('d5')?.key.id, 'k5');
  });

  it('hands out rows nobody can change', () => {
    const { cache } = liveCache();
    const kept = cache.keepActor('d1', { user: user(1), key: key('k1', 1) }, cache.changes);
    assert.throws(() => {
      (kept.key as { label: string }).label = 'changed';
    }, TypeError);
    assert.throws(() => (kept.key.scopes as string[]).push('person:write'), TypeError);
    const refreshed = cache.refreshActor('d1', {
      user: kept.user,
      key: { ...kept.key, last_used_at: new Date('2026-02-01T00:00:00Z') },
    });
    assert.equal(cache.actor('d1'), refreshed);
    assert.equal(cache.actor('d1')?.key.last_used_at?.toISOString(), '2026-02-01T00:00:00.000Z');
  });
});
