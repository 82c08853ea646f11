// herd's resident memory, this checkout beside another (`--ab-root`, the code before a change) in
// the same run: each in turn on a fresh copy of the same data captures N events through
// `POST /batch/` (4 senders, batches of 100), then serves retrieves and `distinct_id` lookups
// (32 connections each). VmRSS right after start, right after capture, and its peak under reads.
import type { Dataset } from './http-dataset.ts';
import { makeBatches, sendToHerd } from './http-capture.ts';
import { runLoad, sequence } from './http-load.ts';
import { RssWatch, type ServerChild } from './http-processes.ts';
import type { MemoryRun } from './http-memory-figures.ts';

const MB = 1024 * 1024;

export async function measureMemory(
  checkout: string,
  dataset: Dataset,
  herd: ServerChild,
  options: { events: number; seconds: number },
): Promise<MemoryRun> {
  const { meta } = dataset;
  const watch = new RssWatch(herd.pid, 100);
  try {
    const afterStartMb = herd.rss() / MB;
    const seconds = await sendToHerd(
      herd.url,
      meta.a.captureToken,
      makeBatches(`memory-${checkout}`, options.events, 100),
      4,
    );
    const afterCaptureMb = herd.rss() / MB;
    const capturePeakMb = watch.takePeak() / MB;
    const target = { name: checkout, url: herd.url, headers: { authorization: `Bearer ${meta.a.key}` } };
    const next = sequence(meta.persons, 5);
    const base = `/api/projects/${meta.a.projectId}/persons`;
    const retrieve = await runLoad(target, {
      connections: 32,
      seconds: options.seconds,
      path: () => `${base}/${meta.a.firstPersonId + next()}/`,
    });
    const distinct = await runLoad(target, {
      connections: 32,
      seconds: options.seconds,
      path: () => `${base}/?distinct_id=user-${meta.a.firstPersonId + next()}`,
    });
    return {
      checkout,
      figures: {
        afterStartMb,
        capturePeakMb,
        afterCaptureMb,
        readPeakMb: watch.takePeak() / MB,
        baselineReadPeakMb: null,
      },
      eventsPerSecond: options.events / seconds,
      reads: { retrieve: retrieve.responses / retrieve.seconds, distinctId: distinct.responses / distinct.seconds },
    };
  } finally {
    watch.stop();
  }
}
