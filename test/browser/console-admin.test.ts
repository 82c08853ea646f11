// The console in Chromium: roles and their members, organization members, personal API keys,
// cohorts, activity, the project switcher, the keyboard, and signing out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { bearer, makeMember, makeProject, makeUser } from '../helpers/factories.ts';
import {
  aria,
  capture,
  choose,
  click,
  fill,
  mainText,
  openConsole,
  screenshot,
  signIn,
  startConsoleHarness,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;
let organizationId: string;

/** The text of what describes the input of that id (its error, tied by aria-describedby). */
async function describedBy(on: Page, id: string): Promise<string> {
  return on.evaluate(`(() => {
    const input = document.getElementById(${JSON.stringify(id)});
    const ids = (input?.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    return ids.map((each) => document.getElementById(each)?.textContent ?? '').join(' ');
  })()`) as Promise<string>;
}

/** The option a person reads in the select of that name. */
async function selectedText(on: Page, label: string): Promise<string> {
  const select = await on.locator(aria(label, 'combobox')).waitHandle();
  const shown = await select.evaluate(
    (element: unknown) => (element as { selectedOptions: ArrayLike<{ text: string }> }).selectedOptions[0]?.text ?? '',
  );
  await select.dispose();
  return shown;
}

async function get(url: string, key = harness.tenant.key) {
  return harness.ctx.app.inject({ url, headers: bearer(key) });
}

before(async () => {
  harness = await startConsoleHarness();
  organizationId = harness.tenant.organization.id;
  const grace = await makeUser(harness.ctx.deps.db, { email: 'grace@example.com', first_name: 'Grace' });
  await makeMember(harness.ctx.deps.db, harness.tenant.organization, grace, 1);
  await makeProject(harness.ctx.deps.db, harness.tenant.organization, 'Second project');
  await capture(harness, [
    { event: 'signed up', distinct_id: 'dana', properties: { $set: { email: 'dana@example.com', plan: 'pro' } } },
    { event: 'signed up', distinct_id: 'eve', properties: { $set: { email: 'eve@example.com', plan: 'free' } } },
    { event: 'signed up', distinct_id: 'finn', properties: { $set: { email: 'finn@example.com', plan: 'pro' } } },
  ]);
  watched = await openConsole(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: administration', () => {
  it('signs in from the keyboard alone', async () => {
    await page.keyboard.press('Tab');
    await page.keyboard.type(harness.tenant.key);
    await page.keyboard.press('Enter');
    await page.waitForSelector(aria('Sections', 'navigation'));
    await waitForText(page, '3 persons');
  });

  it('creates a role, renames it, sets its access level and adds and removes a member', async () => {
    await click(page, 'Roles', 'link');
    await waitForText(page, 'No roles yet.');
    await fill(page, 'Role name', 'Engineering');
    await click(page, 'Create role');
    await page.waitForSelector(aria('Role: Engineering', 'heading'));

    await fill(page, 'Role name', 'Platform');
    await choose(page, 'Feature flag access', 'Can only view');
    await click(page, 'Save role');
    await waitForText(page, 'Role saved.');
    await page.waitForSelector(aria('Role: Platform', 'heading'));

    await choose(page, 'Organization member', 'Grace (grace@example.com)');
    await click(page, 'Add member');
    await page.waitForSelector(aria('Remove grace@example.com'));
    await screenshot(page, 'role');

    const roles = (await get(`/api/organizations/${organizationId}/roles/`)).json() as {
      results: Array<{ name: string; feature_flags_access_level: number; members: Array<{ user: { email: string } }> }>;
    };
    assert.equal(roles.results.length, 1);
    assert.equal(roles.results[0].name, 'Platform');
    assert.equal(roles.results[0].feature_flags_access_level, 21);
    assert.deepEqual(
      roles.results[0].members.map((member) => member.user.email),
      ['grace@example.com'],
    );

    await click(page, 'Remove grace@example.com');
    await click(page, 'Remove from role');
    await waitForText(page, 'Nobody has this role yet.');
  });

  it("shows the API's error beside the role name it refuses", async () => {
    await click(page, 'Back to roles', 'link');
    await page.waitForSelector(aria('Platform', 'link'));
    await fill(page, 'Role name', 'PLATFORM');
    await click(page, 'Create role');
    await waitForText(page, 'There is already a role with this name.');
    // Beside the field, tied to it: the field's description is the API's detail, and it says nothing of "field:".
    assert.equal(await describedBy(page, 'new-role-name'), 'There is already a role with this name.');
    assert.ok(!(await mainText(page)).includes('field:'));
    await screenshot(page, 'roles');
  });

  it('deletes a role', async () => {
    await click(page, 'Platform', 'link');
    await click(page, 'Delete role');
    await click(page, 'Delete role permanently');
    await waitForText(page, 'No roles yet.');
    assert.equal((await get(`/api/organizations/${organizationId}/roles/`)).json().count, 0);
  });

  it('lists and adds organization members', async () => {
    await click(page, 'Members', 'link');
    await waitForText(page, 'grace@example.com');
    await fill(page, 'Email', 'hopper@example.com');
    await fill(page, 'First name', 'Hopper');
    await choose(page, 'Level', 'Admin');
    await click(page, 'Add member');
    await waitForText(page, '3 members');
    assert.equal(await selectedText(page, 'Level of hopper@example.com'), 'Admin');
  });

  it('creates a key with chosen scopes, shows its value once, and revokes it', async () => {
    await click(page, 'API keys', 'link');
    await fill(page, 'Label', 'reporting');
    await page.locator(aria('person:read', 'checkbox')).click();
    await click(page, 'Create key');
    const field = await page.locator(aria('New key value')).waitHandle();
    const value = await field.evaluate((element: unknown) => (element as { value: string }).value);
    assert.match(value, /^phx_/);
    await page.waitForSelector(aria('Revoke reporting'));
    // The new key reads persons and nothing else.
    assert.equal((await get(`/api/projects/${harness.tenant.project.id}/persons/`, value)).statusCode, 200);
    assert.equal((await get(`/api/organizations/${organizationId}/roles/`, value)).statusCode, 403);
    await screenshot(page, 'api-keys');
    // Listed with its mask only.
    assert.ok(!(await mainText(page)).split('Copy its value now')[0].includes(value));

    await click(page, 'Revoke reporting');
    await click(page, 'Revoke key');
    // Closed once the API has answered; while it is open the page behind it is out of the accessibility tree.
    await page.waitForSelector(aria('Revoke reporting?', 'dialog'), { hidden: true });
    await page.waitForSelector(aria('Revoke reporting'), { hidden: true });
    assert.equal((await get(`/api/projects/${harness.tenant.project.id}/persons/`, value)).statusCode, 401);
  });

  it('creates a static cohort from pasted distinct ids and a dynamic one from a filter', async () => {
    await click(page, 'Cohorts', 'link');
    await fill(page, 'Cohort name', 'Pasted');
    await fill(page, 'Distinct IDs, one per line', 'dana\neve\nnobody');
    await click(page, 'Create cohort');
    await waitForText(page, 'Cohort Pasted created with 2 persons.');

    await fill(page, 'Cohort name', 'Pro plan');
    await page.locator(aria('Dynamic: persons matching filters', 'radio')).click();
    await click(page, 'Add filter');
    await fill(page, 'Filter 1 key', 'plan');
    await fill(page, 'Filter 1 value', 'pro');
    await click(page, 'Create cohort');
    await waitForText(page, 'Cohort Pro plan created with 2 persons.');
    // The notice comes with the answer to the POST; the list is fetched again after it.
    await waitForText(page, '2 cohorts');
    const shown = await mainText(page);
    assert.match(shown, /Pasted\s+Static\s+2 persons/);
    assert.match(shown, /Pro plan\s+Dynamic\s+2 persons/);
    await screenshot(page, 'cohorts');
  });

  it('lists activity across persons', async () => {
    const dana = (await get(`/api/projects/${harness.tenant.project.id}/persons/?distinct_id=dana`)).json()
      .results[0] as { id: number };
    const patched = await harness.ctx.app.inject({
      method: 'PATCH',
      url: `/api/projects/${harness.tenant.project.id}/persons/${dana.id}/`,
      headers: harness.tenant.headers,
      payload: { properties: { plan: 'enterprise' } },
    });
    assert.equal(patched.statusCode, 200);
    await click(page, 'Activity', 'link');
    await waitForText(page, 'plan: pro → enterprise');
    // The entry names the person as the persons list does.
    await page.waitForSelector(aria('dana@example.com', 'link'));
  });

  it('switches to another project of the organization', async () => {
    await click(page, 'Persons', 'link');
    await waitForText(page, '3 persons');
    await choose(page, 'Project', 'Second project');
    await waitForText(page, '0 persons');
    await choose(page, 'Project', harness.tenant.project.name);
    await waitForText(page, '3 persons');
  });

  it('signs out and forgets the key', async () => {
    await click(page, 'Sign out');
    await page.waitForSelector(aria('Personal API key'));
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    await page.reload();
    await page.waitForSelector(aria('Personal API key'));
    assert.equal(await page.$(aria('Sections', 'navigation')), null);
  });

  it('signs in again after its key is revoked elsewhere, with the reason shown', async () => {
    const created = await harness.ctx.app.inject({
      method: 'POST',
      url: '/api/personal_api_keys/',
      headers: harness.tenant.headers,
      payload: { label: 'short-lived', scopes: ['*'] },
    });
    const { id, value } = created.json() as { id: string; value: string };
    await signIn(page, value);
    await harness.ctx.app.inject({
      method: 'DELETE',
      url: `/api/personal_api_keys/${id}/`,
      headers: harness.tenant.headers,
    });
    await click(page, 'Cohorts', 'link');
    await waitForText(page, 'You were signed out: Personal API key found in request Authorization header is invalid.');
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
  });

  it('raised no error on the way', () => {
    assert.deepEqual(watched.problems, []);
  });
});
