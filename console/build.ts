// Builds the console (console/src) into console/dist: content-hashed assets, a gzip copy of each,
// index.html and manifest.json. Run by `npm ci` (prepare), by `npm start` when stale, and by the
// browser tests' helper. `node console/build.ts [--if-stale]`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';

const consoleDir = path.dirname(fileURLToPath(import.meta.url));
const rootDir = path.dirname(consoleDir);
const sourceDir = path.join(consoleDir, 'src');
export const CONSOLE_DIST = path.join(consoleDir, 'dist');

export interface ConsoleAsset {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface ConsoleManifest {
  inputsHash: string;
  entry: { script: string; style: string };
  assets: ConsoleAsset[];
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

/** A hash of everything the bundle is made from: the sources, this script and the bundled packages' versions. */
export function consoleInputsHash(): string {
  const hash = crypto.createHash('sha256');
  const files = [...listFiles(sourceDir), fileURLToPath(import.meta.url)].sort();
  for (const file of files)
    hash.update(path.relative(rootDir, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  for (const name of ['preact', 'uplot', 'esbuild']) {
    const manifest = JSON.parse(fs.readFileSync(path.join(rootDir, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    };
    hash.update(`${name}@${manifest.version}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

export function readConsoleManifest(dist = CONSOLE_DIST): ConsoleManifest | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dist, 'manifest.json'), 'utf8')) as ConsoleManifest;
  } catch {
    return null;
  }
}

/** Writes by rename, so a concurrent build of the same inputs or a server reading never sees half a file. */
function writeAtomically(file: string, contents: Uint8Array | string) {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

function indexHtml(script: string, style: string, preload: string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>herd console</title>',
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="/assets/${style}">`,
    `<script type="module" src="/assets/${script}"></script>`,
    // The chunks the entry imports statically, fetched beside it rather than after it.
    ...preload.map((file) => `<link rel="modulepreload" href="/assets/${file}">`),
    '</head>',
    '<body>',
    '<div id="app"><noscript>The herd console needs JavaScript.</noscript></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export async function buildConsole(
  options: { ifStale?: boolean; dist?: string } = {},
): Promise<{ built: boolean; manifest: ConsoleManifest }> {
  const dist = options.dist ?? CONSOLE_DIST;
  const inputsHash = consoleInputsHash();
  const current = readConsoleManifest(dist);
  if (options.ifStale && current?.inputsHash === inputsHash && fs.existsSync(path.join(dist, 'index.html'))) {
    return { built: false, manifest: current };
  }
  const result = await esbuild.build({
    entryPoints: { main: path.join(sourceDir, 'main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    outdir: path.join(dist, 'assets'),
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assetsDir = path.join(dist, 'assets');
  fs.mkdirSync(assetsDir, { recursive: true });
  const assets: ConsoleAsset[] = [];
  for (const output of result.outputFiles) {
    const file = path.basename(output.path);
    const gzip = zlib.gzipSync(output.contents, { level: 9 });
    writeAtomically(path.join(assetsDir, file), output.contents);
    writeAtomically(path.join(assetsDir, `${file}.gz`), gzip);
    assets.push({ file, bytes: output.contents.byteLength, gzipBytes: gzip.byteLength });
  }
  const script = assets.find((asset) => /^main-.*\.js$/.test(asset.file))?.file;
  const style = assets.find((asset) => /^main-.*\.css$/.test(asset.file))?.file;
  if (!script || !style) throw new Error('console build produced no main script or stylesheet');
  const keep = new Set(assets.flatMap((asset) => [asset.file, `${asset.file}.gz`]));
  for (const file of fs.readdirSync(assetsDir)) {
    if (!keep.has(file) && !file.endsWith('.tmp')) fs.rmSync(path.join(assetsDir, file), { force: true });
  }
  const manifest: ConsoleManifest = {
    inputsHash,
    entry: { script, style },
    assets: assets.sort((a, b) => a.file.localeCompare(b.file)),
  };
  const entryOutput = Object.entries(result.metafile.outputs).find(([file]) => path.basename(file) === script)?.[1];
  const preload = (entryOutput?.imports ?? [])
    .filter((item) => item.kind === 'import-statement')
    .map((item) => path.basename(item.path));
  writeAtomically(path.join(dist, 'index.html'), indexHtml(script, style, preload));
  writeAtomically(path.join(dist, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { built: true, manifest };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { built, manifest } = await buildConsole({ ifStale: process.argv.includes('--if-stale') });
  const total = manifest.assets.reduce(
    (sum, asset) => ({ bytes: sum.bytes + asset.bytes, gzip: sum.gzip + asset.gzipBytes }),
    { bytes: 0, gzip: 0 },
  );
  const status = built ? 'built' : 'up to date';
  console.log(
    `console ${status}: ${manifest.assets.length} files, ${total.bytes} bytes (${total.gzip} gzipped) in ${path.relative(process.cwd(), CONSOLE_DIST) || '.'}`,
  );
}
