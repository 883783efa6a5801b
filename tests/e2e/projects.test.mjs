// End-to-end: projects (issue 12, item 8) in the release build, against the scripted
// OpenAI-compatible server, which records every request body. A project made in Settings →
// Projects groups its conversations in the sidebar (folding, remembered through a reload),
// starts new chats with its mask, and its instructions reach the model after the tools
// prompt and before the recap; a conversation moves in and out through the ⋯ menu; deleting
// the project keeps its conversations.
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/projects.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectConsoleErrors, chatSettings, screenshot, openAiSuite } from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const FATAL = /panicked|unreachable|RuntimeError/;
const INSTRUCTIONS = 'Answer for a small balcony garden.';

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url));
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

async function openProjects(page) {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'Projects' }).click();
  await page.locator('section.projects #project-new').waitFor();
}

async function send(page, text, answers) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
  await page.waitForFunction((count) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length === count && all[count - 1].dataset.status === 'done';
  }, answers, { timeout: 15000 });
}

const chatBodies = async () => (await api.requests()).filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body);
const systemText = (body) => body.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
const sidebarRows = (page) => page.locator('.conversation-list > li:not(.list-spacer)').evaluateAll((lis) => lis.map((li) => {
  if (li.classList.contains('project-heading')) {
    const b = li.querySelector('.project-toggle');
    return `P ${li.querySelector('.project-name').textContent} ${li.querySelector('.project-count').textContent} ${b.getAttribute('aria-expanded')}`;
  }
  if (li.classList.contains('conversation-group')) return `# ${li.textContent}`;
  return `${li.classList.contains('nested') ? '  ' : ''}${li.querySelector('.conversation-select')?.textContent}`;
}));

test('a project groups its chats, gives them its mask and instructions, folds, and lets chats move in and out', async () => {
  const { context, page, errors } = await openPage();
  try {
    await api.script([{ reply: 'Loose answer.' }, { reply: 'Basil likes sun.' }, { reply: 'Moved answer.' }, { reply: 'After delete.' }]);
    // A conversation outside any project, made first.
    await send(page, 'Loose question', 1);

    await openProjects(page);
    const panel = page.locator('section.projects');
    await panel.locator('#project-new').click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'project-name');
    // No name: refused on the field, with the focus there.
    await panel.locator('.project-save').click();
    assert.match(await panel.locator('#project-name-err').innerText(), /A project needs a name\./);
    assert.equal(await panel.locator('#project-name').getAttribute('aria-invalid'), 'true');
    await panel.getByLabel('Name').fill('Garden');
    await panel.getByLabel('Instructions for the model').fill(INSTRUCTIONS);
    await panel.getByLabel('New chats start with the mask').selectOption('builtin-translator');
    await panel.locator('.project-save').click();
    const row = panel.locator('li.project-row', { hasText: 'Garden' });
    await row.waitFor();
    assert.match(await row.innerText(), /0 conversations/);
    await screenshot(page, 'projects-list').catch(() => {});
    await row.getByRole('button', { name: 'New chat in Garden' }).click();
    await page.locator('.settings').waitFor({ state: 'detached' });
    assert.match(await page.locator('.mask-line').innerText(), /New chat in the project Garden/);
    assert.match(await page.locator('.mask-line').innerText(), /New chat with the mask .*Translator/);

    await send(page, 'What grows in shade?', 1);
    const [, inProject] = await chatBodies();
    const system = systemText(inProject);
    assert.match(system, /This conversation belongs to the project “Garden”\. The project's instructions:\nAnswer for a small balcony garden\./);
    assert.ok(inProject.messages.some((m) => /You are a translator/.test(m.content)), "the project's mask applies");
    assert.match(await page.locator('.mask-line').innerText(), /Project: Garden/);
    assert.deepEqual(await sidebarRows(page), ['P Garden 1 true', '  What grows in shade?', '# Today', 'Loose question']);
    await screenshot(page, 'projects-sidebar').catch(() => {});

    // Folding is remembered through a reload.
    await page.locator('.project-toggle').click();
    await page.waitForFunction(() => !document.querySelector('.conversation.nested'));
    await page.reload();
    await page.waitForSelector('.project-heading');
    assert.deepEqual(await sidebarRows(page), ['P Garden 1 false', '# Today', 'Loose question']);
    await page.locator('.project-toggle').click();
    await page.locator('.conversation.nested').waitFor();

    // The loose conversation moves into the project through the ⋯ menu.
    await page.locator('.conversation-select', { hasText: 'Loose question' }).click();
    await page.locator('summary[aria-label="Conversation actions"]').click();
    await page.locator('.move-project select').selectOption({ label: 'Garden' });
    await page.waitForFunction(() => document.querySelectorAll('.conversation.nested').length === 2);
    assert.match(await page.locator('.project-count').innerText(), /^2$/);
    await send(page, 'Now in the garden?', 2);
    assert.match(systemText((await chatBodies())[2]), /balcony garden/, 'a moved chat gets the instructions');

    // Deleting the project asks once more and keeps its conversations, outside any project.
    await openProjects(page);
    await panel.locator('li.project-row .row-delete').click();
    assert.match(await panel.locator('.project-confirm').innerText(), /Its conversations stay/);
    await panel.locator('.row-delete-for-good').click();
    await panel.locator('.project-empty').waitFor();
    await page.click('button[aria-label="Close settings"]');
    await page.waitForFunction(() => !document.querySelector('.project-heading'));
    const rows = await sidebarRows(page);
    assert.equal(rows.length, 3, rows.join(' | '));
    assert.ok(rows.includes('What grows in shade?') && rows.includes('Loose question'), rows.join(' | '));
    await send(page, 'And now?', 3);
    assert.doesNotMatch(JSON.stringify((await chatBodies())[3]), /balcony/, 'no project, no instructions');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'projects-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test("a project heading's + starts a chat in it, and \"Start it outside the project\" drops it", async () => {
  const { context, page, errors } = await openPage();
  try {
    await api.script([{ reply: 'In.' }, { reply: 'Out.' }]);
    await openProjects(page);
    const panel = page.locator('section.projects');
    await panel.locator('#project-new').click();
    await panel.getByLabel('Name').fill('Work');
    await panel.locator('.project-save').click();
    // A second project with the same name is refused.
    await panel.locator('#project-new').click();
    await panel.getByLabel('Name').fill('work');
    await panel.locator('.project-save').click();
    assert.match(await panel.locator('#project-name-err').innerText(), /There is already a project named “work”\./);
    await panel.locator('.project-cancel').click();
    await page.click('button[aria-label="Close settings"]');

    await page.getByRole('button', { name: 'New chat in Work' }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Message');
    assert.match(await page.locator('.mask-line').innerText(), /New chat in the project Work/);
    await send(page, 'Inside', 1);
    assert.deepEqual(await sidebarRows(page), ['P Work 1 true', '  Inside']);

    await page.getByRole('button', { name: 'New chat in Work' }).click();
    await page.locator('.mask-line button', { hasText: 'Start it outside the project' }).click();
    await page.waitForFunction(() => document.querySelector('.mask-line')?.textContent === '');
    await send(page, 'Outside', 1);
    assert.deepEqual(await sidebarRows(page), ['P Work 1 true', '  Inside', '# Today', 'Outside']);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'projects-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('a masked, summarized project conversation: the request carries the system text, the project, the recap, the mask, then the recent messages', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url, {
    auto_compact: false,
    projects: [{ id: 'proj-1', name: 'Garden', instructions: INSTRUCTIONS, mask: 'builtin-translator' }],
  }));
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  try {
    await page.goto(site.url);
    await page.waitForSelector('textarea[aria-label="Message"]');
    await api.script([{ reply: 'first answer' }, { reply: 'second answer' }, { reply: 'They grow basil.' }, { reply: 'third answer' }]);
    await page.getByRole('button', { name: 'New chat in Garden' }).click();
    await send(page, 'one', 1);
    await send(page, 'two', 2);
    await page.click('.conversation-menu > summary');
    await page.click('.compact-now');
    await page.locator('details.summary-card').waitFor();
    await page.keyboard.press('Escape');
    await send(page, 'three', 3);
    const last = (await chatBodies())[3];
    const system = last.messages[0];
    assert.equal(system.role, 'system');
    const at = (needle) => system.content.indexOf(needle);
    assert.ok(at('Current model:') >= 0, 'the system template first');
    assert.ok(at('Current model:') < at('project “Garden”'), system.content);
    assert.ok(at("The project's instructions:\n" + INSTRUCTIONS) > 0, system.content);
    assert.ok(at(INSTRUCTIONS) < at('recap: They grow basil.'), 'the project before the recap');
    // One leading system message (strict chat templates refuse two): the project's mask's
    // system prompt joins the system text after the recap.
    assert.ok(at('recap: They grow basil.') >= 0, system.content);
    const mask = system.content.slice(at('recap: They grow basil.') + 'recap: They grow basil.'.length);
    assert.match(mask, /^\n\n[\s\S]*translator/i, "then the project's mask");
    assert.deepEqual(last.messages.slice(1).map((m) => m.content), ['two', 'second answer', 'three'], 'then the messages after the summary');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'projects-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
