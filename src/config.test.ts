// The settings of a fleet: worker count, where limits are counted, the budgets; each bad value named.
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_RATE_LIMITS, loadConfig } from './config.ts';

const PG = { DATABASE_URL: 'postgres://herd@db/herd' };

describe('config of workers and shared limits', () => {
  it('counts limits in the database with DATABASE_URL and in the process without, unless told', () => {
    assert.equal(loadConfig(PG).limitsStore, 'database');
    assert.equal(loadConfig({}).limitsStore, 'process');
    assert.equal(loadConfig({ ...PG, LIMITS_STORE: 'process' }).limitsStore, 'process');
    assert.equal(loadConfig({ LIMITS_STORE: 'Database' }).limitsStore, 'database');
  });

  it('runs one worker by default, WEB_CONCURRENCY of them when set, one per core with auto', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.equal(loadConfig({ WEB_CONCURRENCY: '3' }).workers, 3);
    assert.equal(loadConfig({ WEB_CONCURRENCY: 'auto' }).workers, os.availableParallelism());
  });

  it('takes the budgets and the lease time from the environment, the documented ones by default', () => {
    assert.deepEqual(loadConfig({}).rateLimits, DEFAULT_RATE_LIMITS);
    const config = loadConfig({
      RATE_LIMIT_PER_MINUTE: '60',
      RATE_LIMIT_PER_HOUR: '600',
      ANALYTICS_RATE_LIMIT_PER_MINUTE: '30',
      ANALYTICS_RATE_LIMIT_PER_HOUR: '300',
      HEAVY_SLOT_LEASE_MS: '5000',
    });
    assert.deepEqual(config.rateLimits, {
      default: { burst: 60, sustained: 600 },
      analytics: { burst: 30, sustained: 300 },
    });
    assert.equal(config.heavySlotLeaseMs, 5000);
  });

  it('names every bad value at once', () => {
    assert.throws(
      () =>
        loadConfig({
          WEB_CONCURRENCY: 'many',
          LIMITS_STORE: 'redis',
          RATE_LIMIT_PER_MINUTE: '0',
          HEAVY_SLOT_LEASE_MS: '10',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems.map((problem) => problem.split(' ')[0]),
          ['LIMITS_STORE', 'WEB_CONCURRENCY', 'RATE_LIMIT_PER_MINUTE', 'HEAVY_SLOT_LEASE_MS'],
        );
        return true;
      },
    );
  });
});
