// The memory scenario's figures: measured by http-memory.ts, printed by http-report.ts.

export interface MemoryFigures {
  afterStartMb: number;
  capturePeakMb: number | null;
  afterCaptureMb: number | null;
  readPeakMb: number | null;
  baselineReadPeakMb: number | null;
}

export interface MemoryRun {
  /** Which checkout: 'this' or the `--ab-root` one. */
  checkout: string;
  figures: MemoryFigures;
  eventsPerSecond: number;
  reads: { retrieve: number; distinctId: number };
}
