// posthog-node's feature flag calls against a listening herd: /flags/ answers "no flags", so every
// call returns the SDK's "not set" value, and nothing is reported as an error.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, mock, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

let ctx: TestContext;
let tenant: Tenant;
let host: string;
const flagsRequests: string[] = [];

before(async () => {
  ctx = await setupTestApp();
  tenant = await makeTenant(ctx.deps.db);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  ctx.app.server.on('request', (request, response) => {
    if (request.url?.startsWith('/flags'))
      response.on('finish', () => flagsRequests.push(`${request.method} ${request.url} ${response.statusCode}`));
  });
  host = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx.close());

test('posthog-node: flags are not set, payloads absent, no error event and nothing logged as an error', async () => {
  const consoleError = mock.method(console, 'error', () => undefined);
  const errors: unknown[] = [];
  const client = new PostHog(tenant.project.api_token, { host, flushAt: 100, flushInterval: 0, fetchRetryCount: 0 });
  client.on('error', (error) => errors.push(error));
  try {
    const flags = await client.evaluateFlags('flag-user', { personProperties: { plan: 'pro' } });
    assert.equal(flags.isEnabled('new-dashboard'), false);
    assert.equal(flags.getFlag('new-dashboard'), undefined);
    assert.equal(flags.getFlagPayload('new-dashboard'), undefined);

    // The older calls, still what most code uses (they warn that they are deprecated).
    mock.method(console, 'warn', () => undefined);
    assert.equal(await client.getFeatureFlag('new-dashboard', 'flag-user'), undefined);
    assert.equal(await client.isFeatureEnabled('new-dashboard', 'flag-user'), undefined);
    assert.equal(await client.getFeatureFlagPayload('new-dashboard', 'flag-user'), undefined);
    assert.deepEqual(await client.getAllFlags('flag-user'), {});
    assert.deepEqual(await client.getAllFlagsAndPayloads('flag-user'), { featureFlags: {}, featureFlagPayloads: {} });
    await client.shutdown();
  } finally {
    mock.restoreAll();
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(
    consoleError.mock.calls.map((call) => call.arguments),
    [],
  );
  assert.ok(flagsRequests.length >= 5, `the SDK asked herd: ${flagsRequests.join('; ')}`);
  assert.ok(
    flagsRequests.every((line) => line.startsWith('POST /flags/?v=2') && line.endsWith(' 200')),
    flagsRequests.join('; '),
  );
});

test('posthog-node with an unknown token: 401 from /flags/ reads as "not set" too', async () => {
  const errors: unknown[] = [];
  const client = new PostHog('phc_not_a_project_of_herd', { host, flushAt: 100, flushInterval: 0, fetchRetryCount: 0 });
  client.on('error', (error) => errors.push(error));
  const flags = await client.evaluateFlags('flag-user');
  // The SDK reports herd's refusal as its error event, with the status.
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /status=401/);
  assert.equal(flags.getFlag('new-dashboard'), undefined);
  // The exposure event getFlag queued is refused the same way when the client flushes.
  mock.method(console, 'error', () => undefined);
  try {
    await client.shutdown();
  } finally {
    mock.restoreAll();
  }
  assert.ok(errors.every((error) => /status=401/.test(String(error))));
});
