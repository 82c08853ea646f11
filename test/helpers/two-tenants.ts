// An app whose clock stands at a fixed time (no rate limit) with two tenants: the one a test works
// in, and another organization's, whose data must never show.
import { setupTestApp, TestClock, type TestContext } from './app.ts';
import { makeTenant, type Tenant } from './factories.ts';

export async function setupTwoTenants(now: string): Promise<{ ctx: TestContext; tenant: Tenant; other: Tenant }> {
  const ctx = await setupTestApp({ clock: new TestClock(new Date(now)), config: { rateLimit: false } });
  return { ctx, tenant: await makeTenant(ctx.deps.db), other: await makeTenant(ctx.deps.db) };
}
