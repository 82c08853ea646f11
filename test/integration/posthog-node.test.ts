// The official SDK against a listening server: gzip batches to /batch/, then persons and events in the database.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { eventsOf, personByDistinctId } from '../http/capture-helpers.ts';

let ctx: TestContext;
let tenant: Tenant;
let host: string;

before(async () => {
  ctx = await setupTestApp();
  tenant = await makeTenant(ctx.deps.db);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  host = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx.close());

test('posthog-node: capture, identify, alias, person properties, personless capture', async () => {
  const errors: unknown[] = [];
  const client = new PostHog(tenant.project.api_token, { host, flushAt: 100, flushInterval: 0, fetchRetryCount: 0 });
  client.on('error', (error) => errors.push(error));

  client.capture({ distinctId: 'sdk-anon', event: 'page viewed', properties: { path: '/pricing' } });
  client.identify({
    distinctId: 'sdk-user',
    properties: {
      $set: { email: 'sdk@example.com' },
      $set_once: { first_seen: 'pricing' },
      $anon_distinct_id: 'sdk-anon',
    },
  });
  client.alias({ distinctId: 'sdk-user', alias: 'sdk-alias' });
  client.setPersonProperties({
    distinctId: 'sdk-user',
    properties: { plan: 'pro' },
    propertiesOnce: { first_seen: 'ignored' },
  });
  await client.flush();

  client.unsetPersonProperties({ distinctId: 'sdk-user', properties: ['plan'] });
  client.capture({ event: 'server job ran' });
  await client.shutdown();
  assert.deepEqual(errors, []);

  const person = await personByDistinctId(ctx.deps.db, tenant.project.id, 'sdk-user');
  assert.ok(person);
  // The anonymous id had the person first, so sdk-user joined it.
  assert.deepEqual(person.distinct_ids, ['sdk-anon', 'sdk-user', 'sdk-alias']);
  assert.equal(person.is_identified, true);

  const events = await eventsOf(ctx.deps.db, tenant.project.id);
  // The first capture made the person.
  const made = { $creator_event_uuid: events[0].uuid };
  assert.deepEqual(person.properties, { email: 'sdk@example.com', first_seen: 'pricing', ...made });
  assert.deepEqual(
    events.map((event) => event.event),
    ['page viewed', '$identify', '$create_alias', '$set', '$set', 'server job ran'],
  );
  const [pageView, identify, , setPlan, unsetPlan, personless] = events;
  assert.equal(pageView.properties.$lib, 'posthog-node');
  assert.equal(pageView.person_id, person.id);
  assert.deepEqual(pageView.person_properties, made);
  assert.deepEqual(identify.person_properties, { email: 'sdk@example.com', first_seen: 'pricing', ...made });
  assert.equal(setPlan.person_properties.plan, 'pro');
  assert.equal(unsetPlan.person_properties.plan, undefined);
  assert.equal(personless.person_id, null);
  assert.equal(personless.properties.$process_person_profile, false);
  assert.ok(events.every((event) => event.person_id === person.id || event === personless));
});
