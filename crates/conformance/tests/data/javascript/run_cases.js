// Runs every `case_*` export of a JavaScript fixture (CommonJS) against a live
// cluster, through the `cluster` client the fixture exports, and prints one JSON
// report: each case's name, whether it worked, and the error it failed with.
//
//   NODE_PATH=<packages>/node_modules node run_cases.js <fixture.js> <port>
//
// The fixture builds its client from KEYLINT_CLUSTER_PORT.
'use strict';

const path = require('path');

async function main() {
  const [fixture, port] = process.argv.slice(2);
  process.env.KEYLINT_CLUSTER_PORT = port;
  const mod = require(path.resolve(fixture));
  const client = mod.cluster;
  // node-redis clients connect explicitly; ioredis connects by itself.
  if (client && typeof client.isOpen === 'boolean' && !client.isOpen) {
    await client.connect();
  }
  const cases = [];
  for (const name of Object.keys(mod)) {
    if (!name.startsWith('case_') || typeof mod[name] !== 'function') {
      continue;
    }
    const timer = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('timed out after 10 s')), 10000).unref(),
    );
    try {
      await Promise.race([mod[name](), timer]);
      cases.push({ name, ok: true });
    } catch (e) {
      cases.push({ name, ok: false, error: String((e && e.message) || e) });
    }
  }
  if (client) {
    if (typeof client.quit === 'function') {
      await client.quit().catch(() => {});
    }
    if (typeof client.disconnect === 'function') {
      try {
        await client.disconnect();
      } catch (_) {
        // already closed
      }
    }
  }
  process.stdout.write(JSON.stringify({ cases }) + '\n');
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(String((e && e.stack) || e) + '\n');
    process.exit(1);
  },
);
