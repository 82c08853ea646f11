import { processLogDestination } from '../../log.ts';
import { emit, type Command } from '../cli.ts';

export const serveCommand: Command = {
  name: 'serve',
  usage: 'herd serve [--json]',
  summary:
    'Serves the API on PORT and HOST (what `npm start` runs), migrating the database first; SIGTERM or SIGINT stops it gracefully.',
  flags: [],
  jsonResult:
    '{"url", "pid", "setup_url"} once it listens (the log then goes to stderr); setup_url is null unless the database holds no user',
  instead: 'run several servers on one PostgreSQL (DATABASE_URL) instead of the embedded database',
  options: {},
  async run(_values, context) {
    // Loaded on demand: the other commands start without the whole HTTP layer.
    const { serveForever, setupLine } = await import('../../server.ts');
    // With --json stdout carries only the one result object; the log lines go to stderr.
    const server = await serveForever(context.config, context.json ? { logDestination: processLogDestination(2) } : {});
    if (context.json) emit(context, { url: server.url, pid: process.pid, setup_url: server.setupUrl }, []);
    // On an empty database, the one line a person reads among the log's: where to create the first account.
    else if (server.setupUrl) process.stdout.write(`${setupLine(server.setupUrl)}\n`);
  },
};
