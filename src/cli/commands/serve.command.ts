import pino from 'pino';
import { emit, type Command } from '../cli.ts';

export const serveCommand: Command = {
  name: 'serve',
  usage: 'herd serve [--json]',
  options: {},
  async run(_values, context) {
    // Loaded on demand: the other commands start without the whole HTTP layer.
    const { serveForever } = await import('../../server.ts');
    // With --json stdout carries only the one result object; the log lines go to stderr.
    const server = await serveForever(context.config, context.json ? { logDestination: pino.destination(2) } : {});
    if (context.json) emit(context, { url: server.url, pid: process.pid }, []);
  },
};
