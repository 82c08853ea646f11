import { emit, withDeps, type Command } from '../cli.ts';

export const deletionsRunCommand: Command = {
  name: 'deletions run',
  usage: 'herd deletions run [--json]',
  summary: 'Runs the queued event deletions now (progress on stderr).',
  flags: [],
  jsonResult:
    '{"processed", "events_deleted", "events_scrubbed", "kinds": {<kind>: {"processed", "events_deleted", "events_scrubbed"}}}',
  instead: 'let the running server do it: it runs the queued deletions on DELETION_SCHEDULE',
  options: {},
  async run(_values, context) {
    const { runDeletionBatch } = await import('../../jobs/deletion-batch.ts');
    const result = await withDeps(context.config, (deps) =>
      runDeletionBatch(deps, { onProgress: (message) => process.stderr.write(`${message}\n`) }),
    );
    emit(context, { ...result }, [
      `processed ${result.processed} deletion task(s), deleted ${result.events_deleted} event(s), scrubbed ${result.events_scrubbed}`,
    ]);
  },
};
