import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { setupTestApp, type TestContext, injectAs, type InjectMethod } from '../helpers/app.ts';
import { makePerson, makeTenant, makeTenantMember, type Tenant } from '../helpers/factories.ts';

describe('person updates, deletes and splits', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let base: string;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
    base = `/api/projects/${tenant.project.id}/persons`;
  });
  after(() => ctx.close());

  const call = (method: InjectMethod, url: string, payload?: unknown, headers = tenant.headers) =>
    injectAs(ctx, method, url, payload, headers);
  const seed = (properties: Record<string, unknown>, distinctIds: string[]) =>
    makePerson(ctx.deps.db, tenant.project.id, { properties, distinctIds });
  const activityOf = async (id: number) => (await call('GET', `${base}/${id}/activity/`)).json().results;

  describe('PATCH', () => {
    it('captures $set for the first distinct id and answers the updated person; only the given keys change', async () => {
      const person = await seed({ email: 'a@x.io', plan: 'free', keep: 1 }, ['p1-first', 'p1-second']);
      const res = await call('PATCH', `${base}/${person.id}/`, {
        properties: { plan: 'pro', added: [1, 2] },
        name: 'ignored',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().properties, { email: 'a@x.io', plan: 'pro', keep: 1, added: [1, 2] });
      assert.deepEqual(res.json().distinct_ids, ['p1-first', 'p1-second']);
      const events = await ctx.deps.db
        .selectFrom('events')
        .selectAll()
        .where('team_id', '=', tenant.project.id)
        .where('person_id', '=', person.id)
        .execute();
      assert.equal(events.length, 1);
      assert.equal(events[0].event, '$set');
      assert.equal(events[0].distinct_id, 'p1-first');
      const [entry] = await activityOf(person.id);
      assert.equal(entry.activity, 'updated');
      assert.equal(entry.scope, 'Person');
      assert.equal(entry.item_id, String(person.id));
      assert.deepEqual(entry.user, { first_name: tenant.owner.first_name, email: tenant.owner.email });
      assert.equal(entry.detail.name, person.uuid);
      assert.deepEqual(entry.detail.changes, [
        { type: 'Person', action: 'changed', field: 'plan', before: 'free', after: 'pro' },
        { type: 'Person', action: 'changed', field: 'added', before: null, after: [1, 2] },
      ]);
    });

    it('validates properties', async () => {
      const person = await seed({}, ['p2']);
      const missing = await call('PATCH', `${base}/${person.id}/`, {});
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(missing.json(), {
        type: 'validation_error',
        code: 'required',
        detail: 'This field is required.',
        attr: 'properties',
      });
      for (const properties of ['x', [1], null]) {
        const res = await call('PATCH', `${base}/${person.id}/`, { properties });
        assert.equal(res.statusCode, 400, JSON.stringify(properties));
        assert.equal(res.json().code, 'invalid_input');
        assert.equal(res.json().attr, 'properties');
      }
      assert.equal((await call('PATCH', `${base}/999999/`, { properties: {} })).statusCode, 404);
    });
  });

  describe('update_property and delete_property', () => {
    it('sets one property from the query, JSON-decoding the value when it parses', async () => {
      const person = await seed({ a: 1 }, ['up1']);
      const number = await call('POST', `${base}/${person.id}/update_property/?key=n&value=5`);
      assert.equal(number.statusCode, 200, number.body);
      assert.equal(number.json().properties.n, 5);
      const text = await call('POST', `${base}/${person.uuid}/update_property/?key=t&value=hello`);
      assert.equal(text.json().properties.t, 'hello');
      const body = await call('POST', `${base}/${person.id}/update_property/`, { key: 'obj', value: { deep: true } });
      assert.deepEqual(body.json().properties, { a: 1, n: 5, t: 'hello', obj: { deep: true } });
      const [entry] = await activityOf(person.id);
      assert.equal(entry.activity, 'updated');
      assert.deepEqual(entry.detail.changes, [
        { type: 'Person', action: 'changed', field: 'obj', before: null, after: { deep: true } },
      ]);
    });

    it('needs key and value', async () => {
      const person = await seed({}, ['up2']);
      const noValue = await call('POST', `${base}/${person.id}/update_property/?key=a`);
      assert.deepEqual(noValue.json(), {
        type: 'validation_error',
        code: 'required',
        detail: 'This field is required.',
        attr: 'value',
      });
      const noKey = await call('POST', `${base}/${person.id}/update_property/?value=1`);
      assert.equal(noKey.statusCode, 400);
      assert.equal(noKey.json().attr, 'key');
      assert.equal(noKey.json().code, 'required');
    });

    it('deletes one property with $delete_person_property', async () => {
      const person = await seed({ a: 1, b: 'two' }, ['dp1']);
      // Both changes at one instant: the activity list must still give them newest first.
      ctx.clock.set(new Date());
      try {
        const res = await call('POST', `${base}/${person.id}/delete_property/?$unset=b`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().properties, { a: 1 });
        const event = await ctx.deps.db
          .selectFrom('events')
          .selectAll()
          .where('team_id', '=', tenant.project.id)
          .where('person_id', '=', person.id)
          .executeTakeFirstOrThrow();
        assert.equal(event.event, '$delete_person_property');
        assert.deepEqual(event.properties.$unset, ['b']);
        const viaBody = await call('POST', `${base}/${person.id}/delete_property/`, { $unset: 'a' });
        assert.deepEqual(viaBody.json().properties, {});
      } finally {
        ctx.clock.release();
      }
      const entries = await activityOf(person.id);
      assert.equal(entries.length, 2);
      assert.equal(entries[0].created_at, entries[1].created_at);
      assert.deepEqual(
        entries.map((entry: { activity: string }) => entry.activity),
        ['delete_property', 'delete_property'],
      );
      assert.deepEqual(entries[0].detail.changes, [
        { type: 'Person', action: 'changed', field: 'a', before: 1, after: null },
      ]);
      assert.deepEqual(entries[1].detail.changes, [
        { type: 'Person', action: 'changed', field: 'b', before: 'two', after: null },
      ]);
      const missing = await call('POST', `${base}/${person.id}/delete_property/`);
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().attr, '$unset');
    });
  });

  describe('DELETE', () => {
    it('removes the person and its distinct ids, keeps events, logs deleted; 204', async () => {
      const person = await seed({ email: 'gone@x.io' }, ['del1', 'del1b']);
      await call('PATCH', `${base}/${person.id}/`, { properties: { x: 1 } });
      const res = await call('DELETE', `${base}/${person.id}/`);
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal((await call('GET', `${base}/${person.id}/`)).statusCode, 404);
      const distinct = await ctx.deps.db
        .selectFrom('person_distinct_ids')
        .selectAll()
        .where('team_id', '=', tenant.project.id)
        .where('distinct_id', 'in', ['del1', 'del1b'])
        .execute();
      assert.equal(distinct.length, 0);
      const events = await ctx.deps.db
        .selectFrom('events')
        .selectAll()
        .where('team_id', '=', tenant.project.id)
        .where('person_id', '=', person.id)
        .execute();
      assert.equal(events.length, 1);
      const tasks = await ctx.deps.db
        .selectFrom('deletion_tasks')
        .selectAll()
        .where('team_id', '=', tenant.project.id)
        .where('person_uuid', '=', person.uuid)
        .execute();
      assert.equal(tasks.length, 0);
      // Only the all-persons log still reaches a deleted person's entries.
      assert.equal((await call('GET', `${base}/${person.id}/activity/`)).statusCode, 404);
      const all = (await call('GET', `${base}/activity/`)).json().results;
      const deleted = all.find(
        (entry: { activity: string; item_id: string }) =>
          entry.activity === 'deleted' && entry.item_id === String(person.id),
      );
      assert.deepEqual(deleted.detail, { changes: null, name: person.uuid });
      assert.equal((await call('DELETE', `${base}/${person.id}/`)).statusCode, 404);
    });

    it('queues one deletion task with delete_events=true', async () => {
      const person = await seed({}, ['del2', 'del2b']);
      const res = await call('DELETE', `${base}/${person.uuid}/?delete_events=true`);
      assert.equal(res.statusCode, 204);
      const tasks = await ctx.deps.db
        .selectFrom('deletion_tasks')
        .selectAll()
        .where('team_id', '=', tenant.project.id)
        .where('person_uuid', '=', person.uuid)
        .execute();
      assert.equal(tasks.length, 1);
      assert.deepEqual(tasks[0].distinct_ids, ['del2', 'del2b']);
      assert.equal(tasks[0].team_id, tenant.project.id);
      assert.equal(tasks[0].created_by_id, tenant.owner.id);
      assert.equal(tasks[0].delete_verified_at, null);
    });

    it('lists only person changes as activity once the queued deletion ran', async () => {
      const person = await seed({}, ['del5']);
      assert.equal((await call('DELETE', `${base}/${person.id}/?delete_events=true`)).statusCode, 204);
      await runDeletionBatch(ctx.deps);
      const entries = (await call('GET', `${base}/activity/?limit=1000`))
        .json()
        .results.filter((entry: { item_id: string }) => entry.item_id === String(person.id));
      assert.deepEqual(
        entries.map((entry: { activity: string }) => entry.activity),
        ['deleted'],
      );
    });

    it('rejects delete_events other than true or false, and deletes nothing', async () => {
      const person = await seed({}, ['del3']);
      const res = await call('DELETE', `${base}/${person.id}/?delete_events=yes`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().attr, 'delete_events');
      assert.equal((await call('DELETE', `${base}/${person.id}/?delete_events=false`)).statusCode, 204);
    });

    it('needs person:write and cannot reach another project', async () => {
      const person = await seed({}, ['del4']);
      const reader = await makeTenantMember(ctx.deps.db, tenant, 1, ['person:read']);
      const denied = await call('DELETE', `${base}/${person.id}/`, undefined, reader.headers);
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().detail, "API key missing required scope 'person:write'");
      const foreign = await makePerson(ctx.deps.db, other.project.id, { distinctIds: ['del4'] });
      assert.equal((await call('DELETE', `${base}/${foreign.id}/`)).statusCode, 404);
      assert.equal((await call('PATCH', `${base}/${foreign.id}/`, { properties: { a: 1 } })).statusCode, 404);
      assert.equal((await call('POST', `${base}/${foreign.id}/split/`)).statusCode, 404);
      assert.ok(
        await ctx.deps.db
          .selectFrom('persons')
          .select('id')
          .where('team_id', '=', other.project.id)
          .where('id', '=', foreign.id)
          .executeTakeFirst(),
      );
    });
  });

  describe('bulk_delete', () => {
    it('deletes the union of ids (integers or uuids) and distinct_ids, each once, in one call', async () => {
      const a = await seed({}, ['b-a']);
      const b = await seed({}, ['b-b1', 'b-b2']);
      const c = await seed({}, ['b-c']);
      const foreign = await makePerson(ctx.deps.db, other.project.id, { distinctIds: ['b-c-foreign'] });
      const res = await call('POST', `${base}/bulk_delete/`, {
        ids: [a.id, b.uuid, foreign.id, 999999],
        distinct_ids: ['b-b1', 'b-b2', 'b-c', 'b-c-foreign', 'unknown'],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { persons_found: 3, persons_deleted: 3, events_queued_for_deletion: false });
      for (const person of [a, b, c]) assert.equal((await call('GET', `${base}/${person.id}/`)).statusCode, 404);
      assert.ok(
        await ctx.deps.db
          .selectFrom('persons')
          .select('id')
          .where('team_id', '=', other.project.id)
          .where('id', '=', foreign.id)
          .executeTakeFirst(),
      );
      const entries = (await call('GET', `${base}/activity/?limit=1000`))
        .json()
        .results.filter(
          (entry: { activity: string; item_id: string }) =>
            entry.activity === 'deleted' && [a, b, c].some((person) => String(person.id) === entry.item_id),
        );
      assert.equal(entries.length, 3);
    });

    it('reads ids from the query string, repeated or comma-separated, and queues deletions', async () => {
      const a = await seed({}, ['q-a']);
      const b = await seed({}, ['q-b']);
      const c = await seed({}, ['q-c']);
      const res = await call('POST', `${base}/bulk_delete/?ids=${a.id},${b.id}&ids=${c.uuid}&delete_events=true`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { persons_found: 3, persons_deleted: 3, events_queued_for_deletion: true });
      const tasks = await ctx.deps.db
        .selectFrom('deletion_tasks')
        .selectAll()
        .where('team_id', '=', tenant.project.id)
        .where('person_uuid', 'in', [a.uuid, b.uuid, c.uuid])
        .execute();
      assert.equal(tasks.length, 3);
      const none = await call('POST', `${base}/bulk_delete/?distinct_ids=nobody&delete_events=true`);
      assert.deepEqual(none.json(), { persons_found: 0, persons_deleted: 0, events_queued_for_deletion: false });
    });

    it("reads the flag under the reference's spelling `delete_event` too, in the query or the body", async () => {
      const a = await seed({}, ['spelled-a']);
      const b = await seed({}, ['spelled-b']);
      const viaQuery = await call('POST', `${base}/bulk_delete/?ids=${a.id}&delete_event=true`);
      assert.deepEqual(viaQuery.json(), { persons_found: 1, persons_deleted: 1, events_queued_for_deletion: true });
      const viaBody = await call('POST', `${base}/bulk_delete/`, { ids: [b.id], delete_event: true });
      assert.deepEqual(viaBody.json(), { persons_found: 1, persons_deleted: 1, events_queued_for_deletion: true });
      const bad = await call('POST', `${base}/bulk_delete/?distinct_ids=x&delete_event=maybe`);
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().attr, 'delete_events');
    });

    it('validates limits, presence and the body', async () => {
      const tooManyIds = await call('POST', `${base}/bulk_delete/`, {
        ids: Array.from({ length: 101 }, (_, i) => i + 1),
      });
      assert.equal(tooManyIds.statusCode, 400);
      assert.equal(tooManyIds.json().detail, 'You can only pass 100 ids in one call');
      const tooManyDistinct = await call('POST', `${base}/bulk_delete/`, {
        distinct_ids: Array.from({ length: 101 }, (_, i) => `x${i}`),
      });
      assert.equal(tooManyDistinct.json().detail, 'You can only pass 100 distinct_ids in one call');
      const viaQuery = await call(
        'POST',
        `${base}/bulk_delete/?ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`,
      );
      assert.equal(viaQuery.json().detail, 'You can only pass 100 ids in one call');
      for (const payload of [{}, { ids: [], distinct_ids: [] }, undefined]) {
        const res = await call('POST', `${base}/bulk_delete/`, payload);
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().detail, 'You need to specify either distinct_ids or ids');
      }
      const huge = await call('POST', `${base}/bulk_delete/`, { ids: [1e20, '123456789012345678901234567890'] });
      assert.deepEqual(huge.json(), { persons_found: 0, persons_deleted: 0, events_queued_for_deletion: false });
      const badId = await call('POST', `${base}/bulk_delete/`, { ids: ['not-an-id'] });
      assert.equal(badId.statusCode, 400);
      assert.equal(badId.json().attr, 'ids');
      for (const payload of ['null', '[1]', '"x"', '5']) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: `${base}/bulk_delete/?ids=1`,
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload,
        });
        assert.equal(res.statusCode, 400, payload);
      }
    });
  });

  describe('split', () => {
    it('moves every distinct id but the first to a new person each; the original keeps its properties', async () => {
      const person = await seed({ email: 's@x.io' }, ['s-1', 's-2', 's-3']);
      const res = await call('POST', `${base}/${person.id}/split/`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { success: true });
      const original = (await call('GET', `${base}/${person.id}/`)).json();
      assert.deepEqual(original.distinct_ids, ['s-1']);
      assert.deepEqual(original.properties, { email: 's@x.io' });
      for (const distinctId of ['s-2', 's-3']) {
        const [moved] = (await call('GET', `${base}/?distinct_id=${distinctId}`)).json().results;
        assert.deepEqual(moved.distinct_ids, [distinctId]);
        assert.deepEqual(moved.properties, {});
        assert.notEqual(moved.id, person.id);
      }
      const [entry] = await activityOf(person.id);
      assert.equal(entry.activity, 'split_person');
      assert.deepEqual(entry.detail.changes, [
        { type: 'Person', action: 'split', field: null, before: null, after: { distinct_ids: ['s-1', 's-2', 's-3'] } },
      ]);
    });

    it('keeps main_distinct_id when given', async () => {
      const person = await seed({ a: 1 }, ['m-1', 'm-2']);
      const res = await call('POST', `${base}/${person.id}/split/`, { main_distinct_id: 'm-2' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((await call('GET', `${base}/${person.id}/`)).json().distinct_ids, ['m-2']);
      assert.equal((await call('GET', `${base}/?distinct_id=m-1`)).json().results[0].distinct_ids[0], 'm-1');
    });

    it('answers 400 for an unknown main_distinct_id and changes nothing; a bad body is 400', async () => {
      const person = await seed({}, ['u-1', 'u-2']);
      const res = await call('POST', `${base}/${person.id}/split/`, { main_distinct_id: 'u-9' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().attr, 'main_distinct_id');
      assert.deepEqual((await call('GET', `${base}/${person.id}/`)).json().distinct_ids, ['u-1', 'u-2']);
      for (const payload of ['null', '[]', '3']) {
        const bad = await ctx.app.inject({
          method: 'POST',
          url: `${base}/${person.id}/split/`,
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload,
        });
        assert.equal(bad.statusCode, 400, payload);
      }
      assert.equal((await call('POST', `${base}/999999/split/`)).statusCode, 404);
    });
  });

  describe('activity', () => {
    it('lists newest first, paginated, and needs activity_log:read', async () => {
      const person = await seed({}, ['act-1']);
      for (let i = 0; i < 3; i++) {
        ctx.clock.set(new Date(Date.UTC(2030, 0, 1, 0, 0, i)));
        await call('POST', `${base}/${person.id}/update_property/?key=n&value=${i}`);
      }
      ctx.clock.set(new Date());
      const page = (await call('GET', `${base}/${person.id}/activity/?limit=2`)).json();
      assert.equal(page.count, 3);
      assert.equal(page.results.length, 2);
      assert.ok(page.next.endsWith('limit=2&offset=2'));
      assert.deepEqual(
        page.results.map((entry: { detail: { changes: { after: number }[] } }) => entry.detail.changes[0].after),
        [2, 1],
      );
      const reader = await makeTenantMember(ctx.deps.db, tenant, 1, ['person:read']);
      const denied = await call('GET', `${base}/activity/`, undefined, reader.headers);
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().detail, "API key missing required scope 'activity_log:read'");
      const csv = await call('GET', `${base}/${person.id}/activity/?format=csv&limit=1`);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const [header, line] = csv.body.trim().split('\n');
      assert.equal(
        header,
        'activity,created_at,detail.changes.0.action,detail.changes.0.after,detail.changes.0.before,detail.changes.0.field,detail.changes.0.type,detail.name,id,item_id,scope,user.email,user.first_name',
      );
      assert.ok(line.startsWith('updated,2030-01-01T00:00:02.000Z,changed,2,1,n,Person,'), line);
      // A bad format is refused before anything changes.
      const refused = await call('POST', `${base}/${person.id}/update_property/?key=n&value=9&format=xml`);
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().attr, 'format');
      assert.equal((await call('GET', `${base}/${person.id}/`)).json().properties.n, 2);
      // Another project sees none of these entries.
      const foreign = (
        await call('GET', `/api/projects/${other.project.id}/persons/activity/`, undefined, other.headers)
      ).json();
      assert.equal(foreign.count, 0);
    });
  });
});
