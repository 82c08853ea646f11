// The herd command's entry. Node's compile cache comes first: the code of every module (herd's
// own, stripped of its types, and its packages') is compiled once and kept on disk, so a start
// does not compile it all again; it must be on before the CLI's module graph is loaded, hence the
// dynamic import. NODE_COMPILE_CACHE names another directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import module from 'node:module';
import path from 'node:path';

module.enableCompileCache?.(
  process.env.NODE_COMPILE_CACHE || path.join(import.meta.dirname, '../../node_modules/.cache/herd/compile'),
);
const { main } = await import('./dispatch.ts');
const code = await main(process.argv.slice(2));
// A server runs until a signal: keep what it compiled now (it is flushed at exit otherwise).
module.flushCompileCache?.();
// serve keeps the process alive on its own; every other command is done here.
if (code !== 0) process.exit(code);
