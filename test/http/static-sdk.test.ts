// posthog-js served at /static/: the pinned package's own files, to any origin, cacheable, and
// nothing but those files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { loadBrowserSdkFiles } from '../../src/modules/browser-sdk/browser-sdk-files.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { posthogSnippet } from '../helpers/browser.ts';

const packageJson = createRequire(import.meta.url).resolve('posthog-js/package.json');
const dist = path.join(path.dirname(packageJson), 'dist');
const { version } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version: string };
const ownPackage = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

let ctx: TestContext;

before(async () => {
  ctx = await setupTestApp();
});
after(() => ctx.close());

const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

test('posthog-js is a dependency pinned to one exact version, the one served', () => {
  assert.match(ownPackage.dependencies['posthog-js'], /^\d+\.\d+\.\d+$/);
  assert.equal(ownPackage.dependencies['posthog-js'], version);
  assert.equal(loadBrowserSdkFiles().version, version);
});

test('/static/array.js is the package file, as JavaScript, to any origin, with caching headers', async () => {
  const response = await get('/static/array.js', { origin: 'https://shop.example.com' });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.rawPayload, fs.readFileSync(path.join(dist, 'array.js')));
  assert.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(response.headers['access-control-allow-origin'], '*');
  assert.equal(response.headers['cross-origin-resource-policy'], 'cross-origin');
  assert.equal(response.headers['cache-control'], 'public, max-age=3600');
  assert.match(String(response.headers.etag), /^W\/"[\w-]+"$/);
  assert.ok(!Number.isNaN(Date.parse(String(response.headers['last-modified']))));
  assert.equal(response.headers.vary, 'Accept-Encoding');
});

test('gzip when the client takes it, the same script once inflated', async () => {
  const response = await get('/static/array.js', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(response.headers['content-encoding'], 'gzip');
  const plain = fs.readFileSync(path.join(dist, 'array.js'));
  assert.ok(response.rawPayload.length < plain.length / 2);
  assert.deepEqual(zlib.gunzipSync(response.rawPayload), plain);
});

test('revalidation: the ETag or the date answers 304 with no body; another ETag gets the file', async () => {
  const first = await get('/static/array.js');
  const etag = String(first.headers.etag);
  const conditions: Array<Record<string, string>> = [
    { 'if-none-match': etag },
    { 'if-none-match': `"other", ${etag}` },
    { 'if-modified-since': String(first.headers['last-modified']) },
  ];
  for (const headers of conditions) {
    const again = await get('/static/array.js', headers);
    assert.equal(again.statusCode, 304, JSON.stringify(headers));
    assert.equal(again.rawPayload.length, 0);
    assert.equal(again.headers.etag, etag);
  }
  assert.equal((await get('/static/array.js', { 'if-none-match': 'W/"stale"' })).statusCode, 200);
});

test('the scripts posthog-js loads beside it, under ?v=<version> or /<version>/, cached for good', async () => {
  for (const name of [
    'recorder.js',
    'lazy-recorder.js',
    'surveys.js',
    'exception-autocapture.js',
    'web-vitals.js',
    'dead-clicks-autocapture.js',
    'tracing-headers.js',
    'product-tours.js',
    'logs.js',
  ]) {
    for (const url of [`/static/${name}?v=${version}`, `/static/${version}/${name}`]) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.deepEqual(response.rawPayload, fs.readFileSync(path.join(dist, name)), url);
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', url);
    }
  }
  // Another version's URL could carry another script: not this one, never cached for good.
  assert.equal((await get(`/static/surveys.js?v=0.0.1`)).headers['cache-control'], 'public, max-age=3600');
  assert.equal((await get(`/static/0.0.1/surveys.js`)).statusCode, 404);
});

test('HEAD answers the headers alone', async () => {
  const response = await ctx.app.inject({ method: 'HEAD', url: '/static/array.js' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.rawPayload.length, 0);
  assert.equal(Number(response.headers['content-length']), fs.statSync(path.join(dist, 'array.js')).size);
});

test('anything else under /static/ is 404 in the envelope: unknown names, other files, paths out of the folder', async () => {
  const urls = [
    '/static/nope.js',
    '/static/array.js.map',
    '/static/array.d.ts',
    '/static/integrity.json',
    '/static/..%2Fpackage.json',
    '/static/%2e%2e%2f%2e%2e%2fpackage.json',
    '/static/..%2F..%2F..%2Fpackage.json',
    '/static/%2e%2e%2f',
    `/static/${version}/..%2F..%2Fpackage.json`,
    '/static/src',
    '/static/',
  ];
  for (const url of urls) {
    const response = await get(url);
    assert.equal(response.statusCode, 404, url);
    assert.deepEqual(
      response.json(),
      { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null },
      url,
    );
  }
});

test('a file is read once and then served from memory', async () => {
  const files = loadBrowserSdkFiles();
  const first = files.find('array.js');
  assert.ok(first);
  assert.equal(files.find('array.js'), first);
  assert.equal(files.find('../package.json'), null);
  assert.deepEqual((await first).body, fs.readFileSync(path.join(dist, 'array.js')));
});

test("the README's snippet is the one the browser test loads, pointed at /static/array.js", () => {
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  assert.ok(
    readme.includes(posthogSnippet('http://localhost:8000')),
    'README shows posthogSnippet() of test/helpers/browser.ts',
  );
  assert.ok(readme.includes("posthog.init('phc_…', { api_host: 'http://localhost:8000' });"));
});
