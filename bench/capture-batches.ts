// The synthetic capture batches of the capture benches (capture.bench.ts, capture-ab.bench.ts).
import type { CaptureEvent } from '../src/ingestion/ingest.ts';
import { uuidV7 } from '../src/ingestion/uuid.ts';

export const VISITORS = 5000;

export interface BatchOptions {
  /** Events per batch. */
  batch: number;
  /** How many persons `existing-0` … exist to receive a $set. */
  existing: number;
  /** The share of events that are personless $pageviews of VISITORS visitors (posthog-js before identify). */
  anonymous: number;
}

/** Batches of `count` events: the anonymous share personless, the others alternately a new person and a $set on an existing one. */
export function captureBatches(round: string, count: number, options: BatchOptions): CaptureEvent[][] {
  const batches: CaptureEvent[][] = [];
  let n = 0;
  let persons = 0;
  while (n < count) {
    const batch: CaptureEvent[] = [];
    for (let i = 0; i < options.batch && n < count; i++, n++) {
      const timestamp = new Date().toISOString();
      // Spreads the share evenly: event n is personless when the running share steps past an integer.
      if (Math.floor((n + 1) * options.anonymous) > Math.floor(n * options.anonymous)) {
        const visitor = `visitor-${Math.floor(Math.random() * VISITORS)}`;
        const properties = {
          $lib: 'bench',
          $current_url: `https://example.com/page/${n % 50}`,
          $process_person_profile: false,
          round,
        };
        batch.push({ event: '$pageview', distinct_id: visitor, uuid: uuidV7(), timestamp, properties });
        continue;
      }
      const fresh = persons++ % 2 === 0;
      const distinctId = fresh ? `new-${round}-${n}` : `existing-${Math.floor(Math.random() * options.existing)}`;
      batch.push({
        event: fresh ? 'signed up' : 'plan changed',
        distinct_id: distinctId,
        uuid: uuidV7(),
        timestamp,
        properties: { $lib: 'bench', $current_url: `https://example.com/page/${n % 50}`, $browser: 'Firefox', round },
        $set: fresh
          ? { email: `${distinctId}@example.com`, plan: 'free' }
          : { plan: `plan-${n % 7}`, [`seen_${round}`]: n },
      });
    }
    batches.push(batch);
  }
  return batches;
}

/** The persons the batches $set on: `existing-0` … in batches of 500. */
export function seedBatches(existing: number): CaptureEvent[][] {
  const batches: CaptureEvent[][] = [];
  for (let i = 0; i < existing; i += 500) {
    batches.push(
      Array.from({ length: Math.min(500, existing - i) }, (_, j) => ({
        event: 'seed',
        distinct_id: `existing-${i + j}`,
        $set: { plan: 'free' },
      })),
    );
  }
  return batches;
}
