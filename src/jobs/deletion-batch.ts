// The weekly event-deletion batch. Until the deletion work lands this processes nothing.
import type { Deps } from '../deps.ts';

export interface DeletionBatchResult {
  processed: number;
  events_deleted: number;
}

export interface DeletionBatchOptions {
  /** Called as work progresses (the CLI prints it on stderr). */
  onProgress?: (message: string) => void;
}

export async function runDeletionBatch(_deps: Deps, _options: DeletionBatchOptions = {}): Promise<DeletionBatchResult> {
  return { processed: 0, events_deleted: 0 };
}
