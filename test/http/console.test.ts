// The console's page and assets as served: a strict Content-Security-Policy on them, long caching
// of hashed assets, gzip, nothing outside the build's list, and the API's headers left as they were.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { buildConsole, type ConsoleManifest } from '../../console/build.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

let ctx: TestContext;
let tenant: Tenant;
let manifest: ConsoleManifest;

before(async () => {
  ({ manifest } = await buildConsole({ ifStale: true }));
  ctx = await setupTestApp();
  tenant = await makeTenant(ctx.deps.db);
});

after(async () => {
  await ctx?.close();
});

function directives(header: unknown): Map<string, string> {
  assert.equal(typeof header, 'string', 'a Content-Security-Policy header');
  return new Map(
    String(header)
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(' ')]),
  );
}

describe('console: serving', () => {
  it('serves the page at / with a strict Content-Security-Policy', async () => {
    const response = await ctx.app.inject({ url: '/' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.equal(response.headers['cache-control'], 'no-cache');
    const csp = directives(response.headers['content-security-policy']);
    assert.equal(csp.get('default-src'), "'none'");
    assert.equal(csp.get('script-src'), "'self'");
    assert.equal(csp.get('style-src'), "'self'");
    assert.equal(csp.get('connect-src'), "'self'");
    assert.equal(csp.get('frame-ancestors'), "'none'");
    for (const [name, value] of csp) assert.doesNotMatch(value, /unsafe-inline|unsafe-eval|\*/, `${name} stays strict`);
    // The page itself holds no inline script or style for the policy to refuse.
    assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(response.body, /<style|style=/);
    assert.ok(response.body.includes(`/assets/${manifest.entry.script}`));
    assert.ok(response.body.includes(`/assets/${manifest.entry.style}`));
  });

  it('serves every built asset for a year, gzipped when asked, under the same policy', async () => {
    for (const asset of manifest.assets) {
      const plain = await ctx.app.inject({ url: `/assets/${asset.file}` });
      assert.equal(plain.statusCode, 200, asset.file);
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.rawPayload.byteLength, asset.bytes);
      assert.ok(plain.headers['content-security-policy']);
      const gzipped = await ctx.app.inject({
        url: `/assets/${asset.file}`,
        headers: { 'accept-encoding': 'gzip, deflate' },
      });
      assert.equal(gzipped.headers['content-encoding'], 'gzip');
      assert.equal(gzipped.headers.vary, 'accept-encoding');
      assert.deepEqual(zlib.gunzipSync(gzipped.rawPayload), plain.rawPayload);
    }
    const script = await ctx.app.inject({ url: `/assets/${manifest.entry.script}` });
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
  });

  it('answers 404 for anything the build did not list', async () => {
    for (const url of [
      '/assets/nope.js',
      '/assets/..%2Fmanifest.json',
      '/assets/..%2F..%2Fpackage.json',
      `/assets/${manifest.entry.script}.gz`,
      '/assets/',
    ]) {
      const response = await ctx.app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().code, 'not_found', url);
    }
  });

  it("leaves the API's own headers unchanged", async () => {
    const response = await ctx.app.inject({ url: '/api/projects/', headers: tenant.headers });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-security-policy'], undefined);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.equal(response.headers['cache-control'], undefined);
  });
});
