// A person read, and capture's lock and write of an ordinary batch, run as named statements on
// PostgreSQL: prepared once on a connection and found there by later runs. (PGlite, in the process,
// runs them unnamed: there the reads and writes still answer.)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openPostgres, type DatabaseHandle } from '../../src/db/database.ts';
import { inRetriedTransaction, prepareEvents, processEvents } from '../../src/ingestion/ingest.ts';
import { createLogger } from '../../src/log.ts';
import { findPerson, listPersons } from '../../src/modules/persons/persons.repository.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { makePerson, makeTenant, type TestPerson } from '../helpers/factories.ts';

/** The texts herd prepared under its names on the one connection of `single`. */
async function namedStatements(single: DatabaseHandle): Promise<Array<{ name: string; statement: string }>> {
  const statements = await sql<{
    name: string;
    statement: string;
  }>`select name, statement from pg_prepared_statements`.execute(single.db);
  return statements.rows.filter((row) => row.name.startsWith('herd_'));
}

describe('prepared point reads', () => {
  let database: TestDatabase;
  let single: DatabaseHandle | null = null;
  let teamId: number;
  let person: TestPerson;

  before(async () => {
    database = await createTestDatabase();
    teamId = (await makeTenant(database.db)).project.id;
    person = await makePerson(database.db, teamId, { distinctIds: ['a', 'b'] });
    // One connection: the statements it prepared are the ones pg_prepared_statements shows.
    if (database.connection) single = await openPostgres(database.connection, 1);
  });
  after(async () => {
    await single?.close();
    await database.close();
  });

  it('reads a person by id, uuid and distinct id the same way every time', async () => {
    const db = single?.db ?? database.db;
    for (let round = 0; round < 3; round++) {
      assert.deepEqual((await findPerson(db, teamId, { id: person.id }))?.distinct_ids, ['a', 'b']);
      assert.equal((await findPerson(db, teamId, { uuid: person.uuid }))?.id, person.id);
      assert.deepEqual(
        (await listPersons(db, teamId, { distinctId: 'b' }, { limit: 1, offset: 0 })).map((found) => found.id),
        [person.id],
      );
      assert.equal(await findPerson(db, teamId, { id: person.id + 1000 }), undefined);
    }
    if (!single) return;
    const named = await namedStatements(single);
    assert.equal(
      named.filter((row) => row.statement.includes('from persons p where p.team_id')).length,
      2,
      'by id and by uuid',
    );
    assert.equal(named.filter((row) => row.statement.includes('d.distinct_id = $')).length, 1, 'by distinct id');
  });

  it('stores ordinary capture batches with a named lock and write, a retry lookup unnamed', async () => {
    const db = single?.db ?? database.db;
    const log = createLogger('silent');
    const batch = (round: number) =>
      prepareEvents(
        [
          { event: 'signed up', distinct_id: `new-${round}`, $set: { plan: 'free' } },
          { event: 'plan changed', distinct_id: 'a', uuid: crypto.randomUUID(), $set: { plan: `plan-${round}` } },
        ],
        { now: new Date(), sentAt: null, attrPrefix: String },
      );
    for (let round = 0; round < 3; round++) {
      const events = batch(round);
      // The first try is optimistic (no stored-events lookup); a retry looks the given uuids up.
      await inRetriedTransaction(log, db, (trx) => processEvents(log, trx, teamId, events, { optimistic: round < 2 }));
    }
    const found = await findPerson(db, teamId, { id: person.id });
    assert.equal(found?.properties.plan, 'plan-2');
    assert.equal((await listPersons(db, teamId, { distinctId: 'new-2' }, { limit: 1, offset: 0 })).length, 1);
    if (!single) return;
    const named = await namedStatements(single);
    assert.equal(named.filter((row) => row.statement.includes('for update of p, d')).length, 1, 'the lock, once');
    assert.equal(named.filter((row) => row.statement.includes('insert into events')).length, 1, 'the write, once');
    assert.equal(
      named.filter((row) => row.statement.includes('join events e')).length,
      0,
      'no lookup of stored events',
    );
  });
});
