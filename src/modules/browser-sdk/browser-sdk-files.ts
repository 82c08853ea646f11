// The browser SDK herd is tested with (posthog-js, pinned in package.json), served from its npm
// package: array.js for the HTML snippet and the scripts it loads lazily beside it. Only names
// listed from the package's dist folder can be served, so no path leads anywhere else; each file
// is read, hashed and gzipped once, on first request, then kept in memory.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);

export interface BrowserSdkFile {
  body: Buffer;
  gzipped: Buffer;
  /** Weak: the gzipped and plain bodies are the same script. */
  etag: string;
  lastModified: Date;
}

export interface BrowserSdkFiles {
  /** posthog-js's version, which the SDK puts in the paths of the scripts it loads. */
  readonly version: string;
  /** The file of that name, or null when the package has none. */
  find(name: string): Promise<BrowserSdkFile> | null;
}

function locatePackage(): { version: string; dist: string } {
  const packageJson = createRequire(import.meta.url).resolve('posthog-js/package.json');
  const { version } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version: string };
  return { version, dist: path.join(path.dirname(packageJson), 'dist') };
}

async function readSdkFile(file: string): Promise<BrowserSdkFile> {
  const [body, stat] = await Promise.all([fs.promises.readFile(file), fs.promises.stat(file)]);
  const digest = crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { body, gzipped: await gzip(body, { level: 9 }), etag: `W/"${digest}"`, lastModified: stat.mtime };
}

export function loadBrowserSdkFiles(): BrowserSdkFiles {
  const { version, dist } = locatePackage();
  const names = new Set(fs.readdirSync(dist).filter((name) => name.endsWith('.js')));
  const cache = new Map<string, Promise<BrowserSdkFile>>();
  return {
    version,
    find(name) {
      if (!names.has(name)) return null;
      let file = cache.get(name);
      if (!file) {
        file = readSdkFile(path.join(dist, name));
        // A failed read is not kept: the next request tries again.
        file.catch(() => cache.delete(name));
        cache.set(name, file);
      }
      return file;
    },
  };
}
