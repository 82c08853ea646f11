// Capture for the HTTP bench: batches of 100 events (half from a new person, half a `$set` on one
// of the capture project's existing persons) sent to herd's `POST /batch/` by 4 senders, beside
// the same events written by 4 senders as one plain multi-row INSERT per batch through `pg`.
// Bodies and bound values are built before the clock starts: the client's work is not counted.
import crypto from 'node:crypto';
import pg from 'pg';
import { PERSONLESS_KEY_MASK } from '../src/db/person-key.ts';
import { CAPTURE_EXISTING } from './http-dataset.ts';
import { abba } from './http-load.ts';

interface BenchEvent {
  event: string;
  distinct_id: string;
  uuid: string;
  timestamp: string;
  properties: Record<string, unknown>;
  $set: Record<string, unknown>;
}

export interface CaptureTiming {
  /** Events herd captures over all its rounds (the raw side inserts as many). */
  events: number;
  senders: number;
  batch: number;
  sets: number;
}

export interface CaptureResult {
  senders: number;
  herdEventsPerSecond: number;
  rawEventsPerSecond: number;
  ratio: number;
  herdEvents: number;
  rawEvents: number;
}

export function makeBatches(tag: string, count: number, size: number): BenchEvent[][] {
  const batches: BenchEvent[][] = [];
  for (let n = 0; n < count; n += size) {
    batches.push(
      Array.from({ length: Math.min(size, count - n) }, (_, i) => {
        const index = n + i;
        const fresh = index % 2 === 0;
        const distinctId = fresh ? `new-${tag}-${index}` : `existing-${crypto.randomInt(CAPTURE_EXISTING)}`;
        return {
          event: fresh ? 'signed up' : 'plan changed',
          distinct_id: distinctId,
          uuid: crypto.randomUUID(),
          timestamp: new Date().toISOString(),
          properties: {
            $lib: 'bench',
            $current_url: `https://example.com/page/${index % 50}`,
            $browser: 'Firefox',
            round: tag,
          },
          $set: fresh ? { email: `${distinctId}@example.com`, plan: 'free' } : { plan: `plan-${index % 7}` },
        };
      }),
    );
  }
  return batches;
}

/** Runs `work` over the items with `senders` loops taking the next item in turn; seconds taken. */
async function inParallel<T>(items: T[], senders: number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
  return (performance.now() - started) / 1000;
}

export function sendToHerd(url: string, token: string, batches: BenchEvent[][], senders: number): Promise<number> {
  const bodies = batches.map((batch) => JSON.stringify({ api_key: token, batch, sent_at: new Date().toISOString() }));
  return inParallel(bodies, senders, async (body) => {
    const response = await fetch(`${url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /batch/ answered ${response.status}: ${text.slice(0, 300)}`);
  });
}

const COLUMNS = 8;
/** Each row's values, and its personless event's key from its distinct id (the 4th value; src/db/person-key.ts). */
const insertText = (rows: number) =>
  `insert into events (team_id, uuid, event, distinct_id, person_id, properties, person_properties, timestamp, person_key) values ${Array.from(
    { length: rows },
    (_, row) => {
      const values = Array.from({ length: COLUMNS }, (_, column) => `$${row * COLUMNS + column + 1}`);
      return `(${values.join(', ')}, (-1 - (hashtextextended(${values[3]}::text, 0) & ${PERSONLESS_KEY_MASK})))`;
    },
  ).join(', ')}`;

function insertRaw(pool: pg.Pool, teamId: number, batches: BenchEvent[][], senders: number): Promise<number> {
  const statements = batches.map((batch) => ({
    text: insertText(batch.length),
    values: batch.flatMap((event) => [
      teamId,
      event.uuid,
      event.event,
      event.distinct_id,
      null,
      JSON.stringify({ ...event.properties, $set: event.$set }),
      '{}',
      event.timestamp,
    ]),
  }));
  return inParallel(statements, senders, async (statement) => {
    await pool.query(statement);
  });
}

export async function runCapture(
  herdUrl: string,
  databaseUrl: string,
  teamId: number,
  token: string,
  timing: CaptureTiming,
): Promise<CaptureResult> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: timing.senders });
  try {
    const perRound = Math.ceil(timing.events / (2 * timing.sets));
    let round = 0;
    await sendToHerd(herdUrl, token, makeBatches('warm-herd', 2000, timing.batch), timing.senders);
    await insertRaw(pool, teamId, makeBatches('warm-raw', 2000, timing.batch), timing.senders);
    const { a: herd, b: raw } = await abba(
      timing.sets,
      () => sendToHerd(herdUrl, token, makeBatches(`herd-${round++}`, perRound, timing.batch), timing.senders),
      () => insertRaw(pool, teamId, makeBatches(`raw-${round++}`, perRound, timing.batch), timing.senders),
    );
    const total = (seconds: number[]) => seconds.reduce((sum, s) => sum + s, 0);
    const herdEvents = perRound * herd.length;
    const rawEvents = perRound * raw.length;
    const herdEventsPerSecond = herdEvents / total(herd);
    const rawEventsPerSecond = rawEvents / total(raw);
    return {
      senders: timing.senders,
      herdEventsPerSecond,
      rawEventsPerSecond,
      ratio: herdEventsPerSecond / rawEventsPerSecond,
      herdEvents,
      rawEvents,
    };
  } finally {
    await pool.end();
  }
}
