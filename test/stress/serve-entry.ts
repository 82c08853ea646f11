// Stand-in for `herd serve` while the CLI is not there: the same config and server functions.
import { loadConfig } from '../../src/config.ts';
import { serveForever } from '../../src/server.ts';

await serveForever(loadConfig());
