// Offline, for real: Wi-Fi off and a local server (issue 31, item 1).
//
// Why a namespace: Playwright's offline emulation refuses every request, loopback included,
// which is not what a laptop with Wi-Fi off does. In a private network namespace with only the
// loopback interface, Chromium reports `navigator.onLine === false` while servers on 127.0.0.1
// still answer — exactly that laptop with a llama.cpp running. This file re-runs
// offline_local.inside.mjs inside such a namespace (`unshare --net`, then `ip link set lo up`);
// no packet can leave it. It needs root (or user namespaces): when the namespace cannot be
// made, the test fails with the reason — it never skips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

test('in a loopback-only network namespace (the browser reports offline)', () => {
  // node --test marks its children (NODE_TEST_CONTEXT) and a marked process runs no files.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const inside = path.join(here, 'offline_local.inside.mjs');
  const run = spawnSync(
    'unshare',
    ['--net', '--', 'sh', '-c', 'ip link set lo up && exec "$0" --test --test-reporter=spec "$1"', process.execPath, inside],
    { encoding: 'utf8', env, timeout: 180_000 },
  );
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  process.stdout.write(output.replace(/^/gm, '    '));
  assert.ifError(run.error);
  assert.equal(run.status, 0, `the tests inside the namespace failed (exit ${run.status}):\n${output.slice(-4000)}`);
  assert.match(output, /ℹ pass [1-9]/, 'the tests inside ran');
  assert.match(output, /ℹ fail 0/);
});
