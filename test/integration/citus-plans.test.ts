// On Citus, events are distributed by person key (migration 0018): each person's events lie on one
// shard, so every per-person pass of the views (window passes, groupings by person) runs on the
// shards and only per-person results or aggregates travel. This test EXPLAINs every statement the
// canonical requests run (test/helpers/analytics-cases.ts) and fails on a pass that runs on the
// coordinator or over an intermediate result (test/helpers/citus-plans.ts reads the plans).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import type { AnalyticsContext } from '../helpers/analytics-factories.ts';
import { cases, recording, runCase, setupCases } from '../helpers/analytics-cases.ts';
import { citusWorkers } from '../helpers/citus.ts';
import { membersShipped, passesOffShards } from '../helpers/citus-plans.ts';

const onCitus = citusWorkers() !== null;

const node = (type: string, more: Record<string, unknown> = {}) => ({ 'Node Type': type, ...more });
const task = (plan: object) => ({ 'Remote Plan': [[{ Plan: plan }]] });
const scan = (plan: object) => node('Custom Scan', { 'Distributed Query': { Job: { Tasks: [task(plan)] } } });
const events = node('Index Only Scan', { 'Relation Name': 'events_102008' });
const intermediate = node('Function Scan', { 'Function Name': 'read_intermediate_result' });

describe('where the per-person passes run', () => {
  it('reads a plan: a pass on the shards passes; one on the coordinator, in a subplan or over an intermediate result is named', () => {
    const pushedDown = [{ Plan: node('Aggregate', { Plans: [scan(node('WindowAgg', { Plans: [events] }))] }) }];
    assert.deepEqual(passesOffShards(pushedDown), []);
    const onCoordinator = [{ Plan: node('WindowAgg', { Plans: [node('Sort', { Plans: [scan(events)] })] }) }];
    assert.deepEqual(passesOffShards(onCoordinator), ['WindowAgg on the coordinator (plan)']);
    const inSubplan = [
      {
        Plan: node('Custom Scan', {
          'Distributed Query': {
            Subplans: [{ PlannedStmt: [{ Plan: node('WindowAgg', { Plans: [scan(events)] }) }] }],
            Job: { Tasks: [task(node('Aggregate', { Plans: [intermediate] }))] },
          },
        }),
      },
    ];
    assert.deepEqual(passesOffShards(inSubplan), ['WindowAgg on the coordinator (plan › subplan 1)']);
    const shipped = [
      { Plan: scan(node('Aggregate', { 'Group Key': ['intermediate_result.person_id'], Plans: [intermediate] })) },
    ];
    assert.deepEqual(passesOffShards(shipped), [
      'Aggregate by intermediate_result.person_id over read_intermediate_result (plan › task)',
    ]);
    // Over the shard's events, with a static cohort's members as an intermediate result: on the shards.
    const cohortMembers = [
      {
        Plan: scan(
          node('Aggregate', {
            'Group Key': ['e.person_key'],
            Plans: [node('Hash Join', { Plans: [events, intermediate] })],
          }),
        ),
      },
    ];
    assert.deepEqual(passesOffShards(cohortMembers), []);
    // A static cohort's members made unique on the shard for a semi-join (a subplan over
    // cohort_people made them): persons, not events. The same grouping over a subplan of events is named.
    const membersOf = (made: object) => [
      {
        Plan: node('Custom Scan', {
          'Distributed Query': {
            Subplans: [{ PlannedStmt: [{ Plan: made }] }],
            Job: {
              Tasks: [
                task(
                  node('Hash Join', {
                    Plans: [
                      node('Aggregate', {
                        'Group Key': ['intermediate_result.person_id'],
                        Plans: [
                          { ...intermediate, 'Function Call': "read_intermediate_result('7_1'::text, 'binary')" },
                        ],
                      }),
                      events,
                    ],
                  }),
                ),
              ],
            },
          },
        }),
      },
    ];
    assert.deepEqual(
      passesOffShards(membersOf(scan(node('Index Only Scan', { 'Relation Name': 'cohort_people_102114' })))),
      [],
    );
    assert.deepEqual(passesOffShards(membersOf(scan(events))), [
      'Aggregate by intermediate_result.person_id over read_intermediate_result (plan › task)',
    ]);
    // The members as a subplan of their own are shipped to every task; read in the task beside the events, not.
    const members = node('Index Only Scan', { 'Relation Name': 'cohort_people_102114' });
    assert.equal(membersShipped(membersOf(scan(members))), 1);
    assert.equal(membersShipped(membersOf(scan(node('Hash Join', { Plans: [events, members] })))), 0);
    assert.equal(membersShipped([{ Plan: scan(node('Hash Join', { Plans: [events, members] })) }]), 0);
    // A grouping by something else (a day, a breakdown value) combined on the coordinator is fine.
    const combined = [{ Plan: node('Aggregate', { 'Group Key': ['remote_scan.day'], Plans: [scan(events)] }) }];
    assert.deepEqual(passesOffShards(combined), []);
  });

  if (onCitus) {
    describe('on Citus', () => {
      let a: AnalyticsContext;
      let cohort: number;
      let queries: CompiledQuery[];
      before(async () => {
        ({ a, cohort } = await setupCases());
        queries = [];
        Object.assign(a.ctx.deps, { db: recording(a.ctx.deps.db, queries) });
      });
      after(() => a.ctx.close());

      it('EXPLAIN of every statement of every canonical view shows its per-person passes on the shards', async () => {
        const db = a.ctx.deps.db;
        const found: string[] = [];
        let explained = 0;
        for (const [name, [view, params]] of Object.entries(cases(cohort))) {
          queries.length = 0;
          const res = await runCase(a, view, params);
          assert.equal(res.status, 200, `${name}: ${res.text}`);
          for (const query of [...queries]) {
            // Statements that read (a leading comment too: those were skipped before).
            if (!/^\s*(--[^\n]*\n\s*)*(select|with)\b/i.test(query.sql)) continue;
            const { rows } = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
              CompiledQuery.raw(`explain (format json, verbose) ${query.sql}`, [...query.parameters]),
            );
            explained += 1;
            for (const pass of passesOffShards(rows[0]['QUERY PLAN'])) found.push(`${name}: ${pass}`);
          }
        }
        assert.ok(explained >= Object.keys(cases(cohort)).length, `${explained} statements explained`);
        assert.deepEqual(found, []);
      });

      it("a view by a static cohort reads the members beside the events, on each event's shard", async () => {
        // cohort_people is co-located with events (migration 0019); by project, the members were a
        // subplan's intermediate result that every shard task read, made unique and hashed.
        const db = a.ctx.deps.db;
        const shipped: string[] = [];
        const byCohort = Object.entries(cases(cohort)).filter(([name]) => name.endsWith('-cohort'));
        assert.equal(byCohort.length, 4);
        for (const [name, [view, params]] of byCohort) {
          queries.length = 0;
          const res = await runCase(a, view, params);
          assert.equal(res.status, 200, `${name}: ${res.text}`);
          const reading = queries.filter((query) => /\bcohort_people\b/.test(query.sql));
          assert.ok(reading.length > 0, `${name} reads the members`);
          for (const query of reading) {
            const { rows } = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
              CompiledQuery.raw(`explain (format json, verbose) ${query.sql}`, [...query.parameters]),
            );
            if (membersShipped(rows[0]['QUERY PLAN']) > 0) shipped.push(name);
          }
        }
        assert.deepEqual(shipped, []);
      });

      it('the shard queries run without JIT: the workers take the role default of the database', async () => {
        // The coordinator's connections say jit=off themselves (database.ts); the workers' sessions
        // are opened by Citus, with the role's defaults (src/db/citus.ts, disableShardJit).
        const { rows } = await a.ctx.deps.db.executeQuery<{ result: string }>(
          CompiledQuery.raw(`select result from run_command_on_workers('show jit')`),
        );
        assert.ok(rows.length >= 2, `${rows.length} workers`);
        assert.deepEqual(
          rows.map((row) => row.result),
          rows.map(() => 'off'),
        );
      });
    });
  }
});
