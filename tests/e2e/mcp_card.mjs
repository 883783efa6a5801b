// What the OAuth e2e files do with an MCP server's card in Settings → MCP servers: wait for a
// line of it to say something, and call one of its tools from its "try" form. Shared so the
// two eras' sign-in tests (oauth.test.mjs, oauth_legacy.test.mjs) read the card the same way.

/** The card of the server named `name`. */
export const card = (page, name) => page.locator(`li.mcp-server[data-server-name="${name}"]`);

/** Waits until `read()` matches `re`; returns the text, or throws with what it last said. */
export async function until(page, what, read, re, timeout = 20_000) {
  const t0 = Date.now();
  let got = '';
  for (;;) {
    got = await read().catch(() => '');
    if (re.test(got)) return got;
    if (Date.now() - t0 > timeout) throw new Error(`${what} never matched ${re}; it says: ${got}`);
    await page.waitForTimeout(100);
  }
}

/**
 * Calls `tool` of server `name` with `args` from its card's "try" form and waits for a new
 * result (a previous one stays until the next call ends, so the texts are compared).
 * Returns {ok, text}: the result, or the error the card shows.
 */
export async function callTool(page, name, tool, args) {
  const r = card(page, name);
  if (!(await r.locator('ul.mcp-tools').count())) await r.locator('.mcp-toggle-tools').click();
  const li = r.locator(`li.mcp-tool[data-tool="${tool}"]`);
  await li.waitFor({ timeout: 10_000 });
  if (!(await li.locator('.mcp-try-args').isVisible())) await li.locator('summary').click();
  const before = await li.locator('.mcp-try-result, .mcp-try-error').allInnerTexts();
  await li.locator('.mcp-try-args').fill(JSON.stringify(args));
  await li.locator('.mcp-try-call').click();
  // A call that never ends is read below as "(no result)", which the caller's assertion names.
  await page
    .waitForFunction(
      ([n, t, old]) => {
        const el = document.querySelector(`li.mcp-server[data-server-name="${n}"] li.mcp-tool[data-tool="${t}"]`);
        const out = el && [...el.querySelectorAll('.mcp-try-result, .mcp-try-error')].map((x) => x.innerText);
        return out && out.length && !el.querySelector('.mcp-try-running') && JSON.stringify(out) !== old;
      },
      [name, tool, JSON.stringify(before)],
      { timeout: 30_000 },
    )
    .catch(() => {});
  if (await li.locator('.mcp-try-result').count()) return { ok: true, text: await li.locator('.mcp-try-result').innerText() };
  return { ok: false, text: await li.locator('.mcp-try-error').innerText().catch(() => '(no result)') };
}
