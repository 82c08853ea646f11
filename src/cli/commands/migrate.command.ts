import { openDatabase } from '../../db/database.ts';
import { migrateOpened } from '../../db/migrate.ts';
import { emit, type Command } from '../cli.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'herd migrate [--json]',
  summary: 'Applies the pending migrations and exits (the server and every command also migrate on start).',
  flags: [],
  jsonResult: '{"applied": [names of the migrations applied], "distributed": [tables placed on Citus by this run]}',
  instead: 'let the running server do it: it applied the migrations when it started',
  options: {},
  async run(_values, context) {
    const handle = await openDatabase(context.config);
    try {
      const { applied, distributed } = await migrateOpened(handle);
      const lines = [applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date'];
      if (distributed.length > 0) lines.push(`distributed on Citus: ${distributed.join(', ')}`);
      emit(context, { applied, distributed }, lines);
    } finally {
      await handle.close();
    }
  },
};
