// The console in Chromium: a confirmation before each destructive act (the way back keeps
// everything, Escape too), a member's level changed in place, the API's errors beside their field
// in words and gone after the next success, a project token at sign-in, and revoking the session's
// own key, which warns that it signs you out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { makeMember, makeUser } from '../helpers/factories.ts';
import {
  aria,
  choose,
  click,
  fill,
  mainText,
  openConsole,
  screenshot,
  signIn,
  startConsoleHarness,
  waitForLoaded,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

async function apiGet(url: string) {
  const response = await harness.ctx.app.inject({ url, headers: harness.tenant.headers });
  return response.json();
}

const membersUrl = () => `/api/organizations/${harness.tenant.organization.id}/members/`;

async function memberLevels(): Promise<Record<string, number>> {
  const page = (await apiGet(membersUrl())) as { results: Array<{ user: { email: string }; level: number }> };
  return Object.fromEntries(page.results.map((member) => [member.user.email, member.level]));
}

/** The text of what describes the input of that accessible name (its error, tied by aria-describedby). */
async function descriptionOf(label: string): Promise<string> {
  const input = await page.locator(aria(label)).waitHandle();
  const text = await input.evaluate((element: unknown) => {
    const node = element as { getAttribute(name: string): string | null; ownerDocument: unknown };
    const doc = node.ownerDocument as { getElementById(id: string): { textContent: string } | null };
    const ids = (node.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== '');
    return ids.map((id) => doc.getElementById(id)?.textContent ?? '').join(' ');
  });
  await input.dispose();
  return text;
}

async function dialogOpen(name: string) {
  await page.waitForSelector(aria(name, 'dialog'));
}

async function dialogGone(name: string) {
  await page.waitForSelector(aria(name, 'dialog'), { hidden: true });
}

before(async () => {
  harness = await startConsoleHarness();
  const grace = await makeUser(harness.ctx.deps.db, { email: 'grace@example.com', first_name: 'Grace' });
  await makeMember(harness.ctx.deps.db, harness.tenant.organization, grace, 1);
  const linus = await makeUser(harness.ctx.deps.db, { email: 'linus@example.com', first_name: 'Linus' });
  await makeMember(harness.ctx.deps.db, harness.tenant.organization, linus, 1);
  watched = await openConsole(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: confirmations, member levels, errors beside their field, sign-in', () => {
  it('recognises a pasted project token at sign-in and says what it is, without sending it', async () => {
    await page.waitForSelector(aria('Personal API key'));
    const before = watched.requests.length;
    await fill(page, 'Personal API key', harness.tenant.project.api_token);
    await click(page, 'Sign in');
    await waitForText(page, 'This is a project token (phc_…)');
    assert.match(await descriptionOf('Personal API key'), /It cannot sign in\. Sign in with a personal API key/);
    const sent = watched.requests.slice(before).filter((url) => url.includes('/api/'));
    assert.deepEqual(sent, [], 'the token went nowhere');
    await screenshot(page, 'sign-in-project-token');
    // A personal API key after it signs in, and the explanation goes.
    await signIn(page, harness.tenant.key);
  });

  it("changes a member's level in place, and shows the refusal of one's own beside its select", async () => {
    await click(page, 'Members', 'link');
    await page.waitForSelector(aria('Level of grace@example.com', 'combobox'));
    await choose(page, 'Level of grace@example.com', 'Admin');
    await waitForText(page, 'Saved');
    assert.equal((await memberLevels())['grace@example.com'], 8);

    // The owner cannot change their own level: the API's words, under that select, and nothing saved.
    const own = `Level of ${harness.tenant.owner.email}`;
    await choose(page, own, 'Member');
    await waitForText(page, "You can't change your own access level.");
    assert.equal(await descriptionOf(own), "You can't change your own access level.");
    assert.equal((await memberLevels())[harness.tenant.owner.email], 15);
    assert.ok(!(await mainText(page)).includes('field:'));
    await screenshot(page, 'members');

    // The next success (adding a member) clears the stale refusal.
    await fill(page, 'Email', 'not an address');
    await click(page, 'Add member');
    await waitForText(page, 'Enter a valid email address.');
    assert.equal(await descriptionOf('Email'), 'Enter a valid email address.');
    await fill(page, 'Email', 'hopper@example.com');
    await click(page, 'Add member');
    await waitForText(page, '4 members');
    const shown = await mainText(page);
    assert.ok(!shown.includes("You can't change your own access level."), shown);
    assert.ok(!shown.includes('Enter a valid email address.'), shown);
  });

  it('asks before removing a member: the way back and Escape keep them, confirming removes them', async () => {
    await click(page, 'Remove linus@example.com from the organization');
    await dialogOpen('Remove linus@example.com from the organization?');
    assert.match(await mainText(page), /loses access to every project of the organization/);
    await screenshot(page, 'confirm-remove-member');
    await click(page, 'Keep member');
    await dialogGone('Remove linus@example.com from the organization?');
    assert.ok('linus@example.com' in (await memberLevels()));

    await click(page, 'Remove linus@example.com from the organization');
    await dialogOpen('Remove linus@example.com from the organization?');
    await page.keyboard.press('Escape');
    await dialogGone('Remove linus@example.com from the organization?');
    assert.ok('linus@example.com' in (await memberLevels()));

    await click(page, 'Remove linus@example.com from the organization');
    await click(page, 'Remove member');
    await waitForText(page, '3 members');
    assert.equal('linus@example.com' in (await memberLevels()), false);
  });

  it("shows a refusal inside the dialog, which stays open: the organization's only owner", async () => {
    const owner = harness.tenant.owner.email;
    await click(page, `Remove ${owner} from the organization`);
    await click(page, 'Remove member');
    await waitForText(page, 'An organization must keep at least one owner.');
    const dialog = await page.locator(aria(`Remove ${owner} from the organization?`, 'dialog')).waitHandle();
    const inDialog = await dialog.evaluate((element: unknown) => (element as { innerText: string }).innerText);
    await dialog.dispose();
    assert.match(inDialog, /^An organization must keep at least one owner\.$/m, inDialog);
    await click(page, 'Keep member');
    await page.waitForSelector(aria(`Remove ${owner} from the organization?`, 'dialog'), { hidden: true });
    assert.equal((await memberLevels())[owner], 15);
  });

  it('asks before deleting a cohort from the list', async () => {
    const created = await harness.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${harness.tenant.project.id}/cohorts/`,
      headers: harness.tenant.headers,
      payload: { name: 'Beta testers', is_static: true, distinct_ids: [] },
    });
    assert.equal(created.statusCode, 201);
    await click(page, 'Cohorts', 'link');
    await click(page, 'Delete cohort Beta testers');
    await dialogOpen('Delete the cohort Beta testers?');
    await click(page, 'Keep cohort');
    await dialogGone('Delete the cohort Beta testers?');
    assert.equal((await apiGet(`/api/projects/${harness.tenant.project.id}/cohorts/`)).count, 1);
    await click(page, 'Delete cohort Beta testers');
    await click(page, 'Delete cohort');
    await waitForText(page, 'No cohorts yet.');
    assert.equal((await apiGet(`/api/projects/${harness.tenant.project.id}/cohorts/`)).count, 0);
  });

  it('asks before revoking a key; revoking the session’s own warns that it signs you out, then does', async () => {
    const keys = (await apiGet('/api/personal_api_keys/')) as { results: Array<{ label: string }> };
    const label = keys.results[0].label;
    await click(page, 'API keys', 'link');
    await waitForLoaded(page);
    await click(page, `Revoke ${label}`);
    const title = `Revoke ${label}, the key you are signed in with?`;
    await dialogOpen(title);
    assert.match(await mainText(page), /revoking it signs you out at once/);
    await screenshot(page, 'confirm-revoke-own-key');
    await click(page, 'Keep key');
    await dialogGone(title);
    assert.equal((await apiGet('/api/personal_api_keys/')).count, 1, 'kept');

    await click(page, `Revoke ${label}`);
    await click(page, 'Revoke and sign out');
    await waitForText(page, 'You were signed out: the key of this session was revoked.');
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    const after = await harness.ctx.app.inject({ url: '/api/personal_api_keys/', headers: harness.tenant.headers });
    assert.equal(after.statusCode, 401);
  });

  it('raised no error on the way', () => {
    assert.deepEqual(watched.problems, []);
  });
});
