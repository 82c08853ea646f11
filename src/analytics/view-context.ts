// What every analytical query runs with: the database, the project and its timezone, the time of
// the request and how per-person queries split over person slices. Built by http/route-helpers.ts.
import type { Db } from '../db/database.ts';

export interface ViewContext {
  db: Db;
  teamId: number;
  timezone: string;
  now: Date;
  /** How many person-id slices per-person queries split over (see person-slices.ts); 1 when absent. */
  slices?: number;
  /** The fewest person ids a slice spans; smaller projects take fewer slices. */
  minIdsPerSlice?: number;
}
