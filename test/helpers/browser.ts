// Browser tests' helpers: Debian's Chromium through puppeteer-core, a page served from another
// origin than herd, and a record of every request the page makes to herd with its answer.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type HTTPRequest, type Page } from 'puppeteer-core';
import { decodeCaptureBody } from '../../src/ingestion/decode-body.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export interface LaunchOptions {
  viewport?: { width: number; height: number };
  /** Where downloads are saved (allowed only when given). */
  downloadPath?: string;
}

/** Chromium, headless, with a new empty profile. A missing Chromium fails the test, saying what to install. */
export async function launchChromium(options: LaunchOptions = {}): Promise<LaunchedBrowser> {
  try {
    fs.accessSync(CHROMIUM_PATH, fs.constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is needed for the browser tests and was not found at ${CHROMIUM_PATH}. ` +
        'Install it with `apt-get install -y chromium` (Debian), or set CHROMIUM_PATH to a Chromium executable.',
    );
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    userDataDir,
    ...(options.viewport ? { defaultViewport: options.viewport } : {}),
    ...(options.downloadPath
      ? { downloadBehavior: { policy: 'allow' as const, downloadPath: options.downloadPath } }
      : {}),
    // posthog-js also drops the events of a browser whose navigator.webdriver is true, which
    // automation and headless mode set.
    ignoreDefaultArgs: ['--enable-automation'],
    args: [
      '--disable-blink-features=AutomationControlled',
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// Chromium's headless user agent says "HeadlessChrome", which posthog-js drops as a bot: pages
// present what a desktop Chrome of the same version presents, in the user agent and client hints.
async function desktopChrome(browser: Browser) {
  const version = /\/([\d.]+)/.exec(await browser.version())?.[1] ?? '140.0.0.0';
  const major = version.split('.')[0];
  return {
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
    userAgentMetadata: {
      brands: [
        { brand: 'Chromium', version: major },
        { brand: 'Google Chrome', version: major },
        { brand: 'Not=A?Brand', version: '24' },
      ],
      fullVersion: version,
      platform: 'Linux',
      platformVersion: '',
      architecture: 'x86',
      model: '',
      mobile: false,
    },
  };
}

/** A page in a context of its own (no cookies or storage of another visitor), looking like desktop Chrome. */
export async function newVisitorPage(browser: Browser): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setUserAgent(await desktopChrome(browser));
  return page;
}

export interface ServedFile {
  body: string | Buffer;
  type: string;
}

export interface PageServer {
  /** e.g. http://localhost:40123 — another origin (and site) than herd's 127.0.0.1. */
  origin: string;
  close(): Promise<void>;
}

/** Serves fixed files (path → content) from `localhost` on a free port; anything else is 404. */
export async function servePages(files: Record<string, ServedFile>): Promise<PageServer> {
  const server = http.createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://localhost').pathname];
    if (!file) {
      // Browsers ask for /favicon.ico on their own; an empty answer keeps that out of the console.
      response.writeHead(request.url === '/favicon.ico' ? 204 : 404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CapturedEvent {
  event: string;
  distinct_id?: unknown;
  properties?: Record<string, unknown>;
}

export interface HerdRequest {
  method: string;
  url: string;
  /** The HTTP status, once answered. */
  status: number | null;
  /** Chromium's reason when the request failed (CORS, connection…). */
  failure: string | null;
  /** The events a capture request carried, decoded as herd decodes them. */
  events: CapturedEvent[];
}

const CAPTURE_PATHS = new Set(['/e/', '/e', '/i/v0/e/', '/i/v0/e', '/batch/', '/batch', '/capture/', '/capture']);

async function eventsOf(request: HTTPRequest): Promise<CapturedEvent[]> {
  if (!CAPTURE_PATHS.has(new URL(request.url()).pathname)) return [];
  const bytes = await request.content();
  if (!bytes) return [];
  const body = await decodeCaptureBody(Buffer.from(bytes), request.headers()['content-type'], 20 * 1024 * 1024);
  const items = Array.isArray(body)
    ? body
    : typeof body === 'object' && body !== null && 'batch' in body
      ? (body as { batch: unknown[] }).batch
      : [body];
  return items as CapturedEvent[];
}

export interface HerdTraffic {
  /** Every request the page made to herd, in the order they were made. */
  readonly requests: HerdRequest[];
  /** Resolves with the first finished capture request that carried an event matching `match`. */
  waitForEvent(match: (event: CapturedEvent) => boolean, timeoutMs?: number): Promise<HerdRequest>;
  /** Resolves once no request to herd is waiting for its answer. */
  settled(timeoutMs?: number): Promise<void>;
  stop(): void;
}

/** Records the requests `page` makes to `origin` and how each was answered. */
export function watchHerdTraffic(page: Page, origin: string): HerdTraffic {
  const requests: HerdRequest[] = [];
  const open = new Map<HTTPRequest, { record: HerdRequest; done: Promise<void> }>();
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((check) => check());

  const onRequest = (request: HTTPRequest) => {
    if (!request.url().startsWith(`${origin}/`)) return;
    const record: HerdRequest = {
      method: request.method(),
      url: request.url(),
      status: null,
      failure: null,
      events: [],
    };
    requests.push(record);
    // The body is read while the request is fresh; the answer is recorded after it.
    open.set(request, { record, done: eventsOf(request).then((events) => void (record.events = events)) });
  };
  const onFinished = (request: HTTPRequest) => {
    const entry = open.get(request);
    if (!entry) return;
    void entry.done.finally(() => {
      entry.record.status = request.response()?.status() ?? null;
      if (entry.record.status === null) entry.record.failure = 'no response';
      open.delete(request);
      notify();
    });
  };
  const onFailed = (request: HTTPRequest) => {
    const entry = open.get(request);
    if (!entry) return;
    void entry.done.finally(() => {
      entry.record.failure = request.failure()?.errorText ?? 'failed';
      open.delete(request);
      notify();
    });
  };
  page.on('request', onRequest);
  page.on('requestfinished', onFinished);
  page.on('requestfailed', onFailed);

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return;
        waiters.delete(attempt);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(attempt);
        reject(
          new Error(
            `${what} did not happen within ${timeoutMs} ms; requests to herd: ${JSON.stringify(summarize(requests))}`,
          ),
        );
      }, timeoutMs);
      waiters.add(attempt);
      attempt();
    });

  return {
    requests,
    waitForEvent(match, timeoutMs = 15_000) {
      return waitUntil(
        () =>
          requests.find((record) => (record.status !== null || record.failure !== null) && record.events.some(match)),
        timeoutMs,
        'the awaited capture',
      );
    },
    async settled(timeoutMs = 15_000) {
      await waitUntil(() => (open.size === 0 ? true : undefined), timeoutMs, 'the end of pending requests');
    },
    stop() {
      page.off('request', onRequest);
      page.off('requestfinished', onFinished);
      page.off('requestfailed', onFailed);
    },
  };
}

/** method, path and answer of each request, for messages and reports. */
export function summarize(requests: HerdRequest[]) {
  return requests.map((record) => {
    const url = new URL(record.url);
    return `${record.method} ${url.pathname}${url.search} → ${record.status ?? record.failure ?? 'pending'}${record.events.length ? ` [${record.events.map((event) => event.event).join(', ')}]` : ''}`;
  });
}

/**
 * The loader the README shows: it queues calls made before the SDK has loaded, then loads
 * posthog-js from herd's /static/array.js, which takes over the queue.
 */
export function posthogSnippet(apiHost: string): string {
  return `!(function (w, d, host) {
  if (w.posthog && w.posthog.__SV) return;
  var queue = (w.posthog = []);
  queue._i = [];
  queue.init = function (token, config) { queue._i.push([token, config]); };
  'capture identify alias reset register setPersonProperties group'.split(' ').forEach(function (name) {
    queue[name] = function () { queue.push([name].concat([].slice.call(arguments))); };
  });
  var script = d.createElement('script');
  script.async = true;
  script.crossOrigin = 'anonymous';
  script.src = host + '/static/array.js';
  d.head.appendChild(script);
})(window, document, ${JSON.stringify(apiHost)});`;
}
