// Measures what ioredis and node-redis cluster clients do with keys in several slots.
//
//   node probe.js <dir> <port>
//
// <dir> is where fixtures/javascript/package.json was installed (the packages are
// loaded from <dir>/node_modules only); <port> is one master of a Redis Cluster on
// 127.0.0.1. Prints one JSON object:
// the library versions, the keys used, and one record per case:
//   { lib, kind, name, relation, outcome: "ok" | "error", error, written }
// relation is how the case's keys lie: "same-slot", "same-node" (another slot on the
// same master) or "other-node"; written lists the case's keys that exist afterwards.
'use strict';

const path = require('path');

const [dir, port] = [process.argv[2], Number(process.argv[3])];
if (!dir || !port) throw new Error('usage: node probe.js <install dir> <port of a cluster master>');
const load = require('module').createRequire(path.resolve(dir, 'package.json'));
// Library under test -> package (older majors are installed under aliases).
const IOREDIS = { ioredis: 'ioredis', 'ioredis@5': 'ioredis-v5' };
const NODE_REDIS = { 'node-redis': 'redis', 'node-redis@5': 'redis-v5', 'node-redis@4': 'redis-v4' };
// Never hang: the Rust test reads this output.
setTimeout(() => {
  console.error('probe.js: timed out');
  process.exit(3);
}, 120000).unref();

const SCRIPT = "redis.call('SET', KEYS[1], '1'); return redis.call('SET', KEYS[2], '2')";
const UNDECLARED = "redis.call('SET', KEYS[1], '1'); return redis.call('SET', ARGV[1], '2')";
const SHEBANG = '#!lua\n' + UNDECLARED;
const SHA = require('crypto').createHash('sha1').update(SCRIPT).digest('hex');

// EVALSHA needs the script on every master.
function loadScript(io) {
  return Promise.all(io.nodes('master').map((n) => n.script('LOAD', SCRIPT)));
}

// --- keys ---------------------------------------------------------------------

// a: the first key; same: a's slot (hash tag); near: another slot on a's master;
// far: a slot on another master. Slots come from CLUSTER KEYSLOT and CLUSTER SLOTS.
async function pickKeys(io) {
  const ranges = await io.cluster('SLOTS');
  const owner = (slot) => ranges.find(([lo, hi]) => slot >= lo && slot <= hi)[2][1];
  const slotOf = (key) => io.cluster('KEYSLOT', key);
  const a = 'probe:{a}:1';
  const same = 'probe:{a}:2';
  const aSlot = await slotOf(a);
  let near;
  let far;
  for (let i = 0; !(near && far); i++) {
    if (i > 100000) throw new Error('no keys on two masters: is this a cluster of several masters?');
    const key = `probe:${i}`;
    const slot = await slotOf(key);
    if (slot === aSlot) continue;
    if (owner(slot) === owner(aSlot)) near = near || key;
    else far = far || key;
  }
  const keys = { a, same, near, far };
  const slots = {};
  for (const [name, key] of Object.entries(keys)) {
    const slot = await slotOf(key);
    slots[name] = { key, slot, port: owner(slot) };
  }
  return { keys, slots };
}

// --- recording ----------------------------------------------------------------

const records = [];

async function flush(io) {
  await Promise.all(io.nodes('master').map((n) => n.flushall()));
}

async function existing(io, keys) {
  const out = [];
  for (const k of keys) if (await io.exists(k)) out.push(k);
  return out;
}

function message(e) {
  if (e && e.name === 'MultiErrorReply' && e.replies) {
    const first = e.replies.find((r) => r instanceof Error);
    return `${e.message}: ${first ? first.message : ''}`;
  }
  return String((e && e.message) || e);
}

// Runs one case on clean data and records what happened and what was written.
async function record(io, rec, keys, run, setup) {
  await flush(io);
  if (setup) await setup();
  let outcome = 'ok';
  let error = null;
  let result;
  try {
    result = await run();
    // ioredis pipelines and transactions report per-command errors in the result.
    if (Array.isArray(result)) {
      const errs = result.filter((r) => Array.isArray(r) && r[0] instanceof Error).map((r) => r[0]);
      if (errs.length) {
        outcome = 'error';
        error = message(errs[0]);
      }
    }
  } catch (e) {
    outcome = 'error';
    error = message(e);
  }
  const written = await existing(io, keys);
  records.push({ ...rec, outcome, error, written });
}

// --- multi-key commands ---------------------------------------------------------

// [command, ioredis call, node-redis call, node-redis method if not the command's
// name]; x and y are the keys.
const COMMANDS = [
  ['MGET', (c, x, y) => c.mget(x, y), (c, x, y) => c.mGet([x, y])],
  ['MSET', (c, x, y) => c.mset(x, '1', y, '2'), (c, x, y) => c.mSet([[x, '1'], [y, '2']])],
  ['MSETNX', (c, x, y) => c.msetnx(x, '1', y, '2'), (c, x, y) => c.mSetNX([[x, '1'], [y, '2']])],
  ['DEL', (c, x, y) => c.del(x, y), (c, x, y) => c.del([x, y])],
  ['UNLINK', (c, x, y) => c.unlink(x, y), (c, x, y) => c.unlink([x, y])],
  ['EXISTS', (c, x, y) => c.exists(x, y), (c, x, y) => c.exists([x, y])],
  ['TOUCH', (c, x, y) => c.touch(x, y), (c, x, y) => c.touch([x, y])],
  ['RENAME', (c, x, y) => c.rename(x, y), (c, x, y) => c.rename(x, y)],
  ['RENAMENX', (c, x, y) => c.renamenx(x, y), (c, x, y) => c.renameNX(x, y)],
  ['COPY', (c, x, y) => c.copy(x, y), (c, x, y) => c.copy(x, y)],
  ['SMOVE', (c, x, y) => c.smove(x, y, 'm'), (c, x, y) => c.sMove(x, y, 'm')],
  ['SINTER', (c, x, y) => c.sinter(x, y), (c, x, y) => c.sInter([x, y])],
  ['SUNION', (c, x, y) => c.sunion(x, y), (c, x, y) => c.sUnion([x, y])],
  ['SDIFF', (c, x, y) => c.sdiff(x, y), (c, x, y) => c.sDiff([x, y])],
  ['SINTERSTORE', (c, x, y) => c.sinterstore(x, x, y), (c, x, y) => c.sInterStore(x, [x, y])],
  ['SUNIONSTORE', (c, x, y) => c.sunionstore(x, x, y), (c, x, y) => c.sUnionStore(x, [x, y])],
  ['SDIFFSTORE', (c, x, y) => c.sdiffstore(x, x, y), (c, x, y) => c.sDiffStore(x, [x, y])],
  ['SINTERCARD', (c, x, y) => c.sintercard(2, x, y), (c, x, y) => c.sInterCard([x, y])],
  ['ZUNIONSTORE', (c, x, y) => c.zunionstore(x, 2, x, y), (c, x, y) => c.zUnionStore(x, [x, y])],
  ['ZINTERSTORE', (c, x, y) => c.zinterstore(x, 2, x, y), (c, x, y) => c.zInterStore(x, [x, y])],
  ['ZDIFFSTORE', (c, x, y) => c.zdiffstore(x, 2, x, y), (c, x, y) => c.zDiffStore(x, [x, y])],
  ['LMOVE', (c, x, y) => c.lmove(x, y, 'LEFT', 'RIGHT'), (c, x, y) => c.lMove(x, y, 'LEFT', 'RIGHT')],
  ['RPOPLPUSH', (c, x, y) => c.rpoplpush(x, y), (c, x, y) => c.rPopLPush(x, y)],
  ['PFCOUNT', (c, x, y) => c.pfcount(x, y), (c, x, y) => c.pfCount([x, y])],
  ['PFMERGE', (c, x, y) => c.pfmerge(x, y), (c, x, y) => c.pfMerge(x, [y])],
  ['BITOP', (c, x, y) => c.bitop('OR', x, x, y), (c, x, y) => c.bitOp('OR', x, [x, y])],
  ['LCS', (c, x, y) => c.lcs(x, y), (c, x, y) => c.LCS(x, y)],
  ['ZUNION', (c, x, y) => c.zunion(2, x, y), (c, x, y) => c.zUnion([x, y])],
  ['ZINTER', (c, x, y) => c.zinter(2, x, y), (c, x, y) => c.zInter([x, y])],
  ['ZDIFF', (c, x, y) => c.zdiff(2, x, y), (c, x, y) => c.zDiff([x, y])],
  ['ZINTERCARD', (c, x, y) => c.zintercard(2, x, y), (c, x, y) => c.zInterCard([x, y])],
  ['ZRANGESTORE', (c, x, y) => c.zrangestore(x, y, 0, -1), (c, x, y) => c.zRangeStore(x, y, 0, -1)],
  ['ZMPOP', (c, x, y) => c.zmpop(2, x, y, 'MIN'), (c, x, y) => c.zmPop([x, y], 'MIN')],
  ['BZPOPMIN', (c, x, y) => c.bzpopmin(x, y, 0.1), (c, x, y) => c.bzPopMin([x, y], 0.1)],
  ['LMPOP', (c, x, y) => c.lmpop(2, x, y, 'LEFT'), (c, x, y) => c.lmPop([x, y], 'LEFT')],
  ['BLPOP', (c, x, y) => c.blpop(x, y, 0.1), (c, x, y) => c.blPop([x, y], 0.1)],
  ['BLMOVE', (c, x, y) => c.blmove(x, y, 'LEFT', 'RIGHT', 0.1),
    (c, x, y) => c.blMove(x, y, 'LEFT', 'RIGHT', 0.1)],
  ['BRPOPLPUSH', (c, x, y) => c.brpoplpush(x, y, 0.1), (c, x, y) => c.brPopLPush(x, y, 0.1)],
  ['XREAD', (c, x, y) => c.xread('STREAMS', x, y, '0', '0'),
    (c, x, y) => c.xRead([{ key: x, id: '0' }, { key: y, id: '0' }])],
  ['GEOSEARCHSTORE', (c, x, y) => c.geosearchstore(x, y, 'FROMLONLAT', 0, 0, 'BYRADIUS', 10, 'km'),
    (c, x, y) => c.geoSearchStore(x, y, { longitude: 0, latitude: 0 }, { radius: 10, unit: 'km' })],
  ['SORT', (c, x, y) => c.sort(x, 'ALPHA', 'STORE', y), (c, x, y) => c.sortStore(x, y, { ALPHA: true }),
    'SORT_STORE'],
];

// Sources of each command's keys, so that it has something to work on.
async function seed(io, name, x, y) {
  if (/^(S|SORT$)/.test(name)) return Promise.all([io.sadd(x, 'm'), io.sadd(y, 'm')]);
  if (/^B?Z/.test(name)) return Promise.all([io.zadd(x, 1, 'm'), io.zadd(y, 1, 'm')]);
  if (/^(B?LMOVE|B?RPOPLPUSH|B?LPOP|LMPOP)$/.test(name)) return io.rpush(x, 'm');
  if (name === 'XREAD') return Promise.all([io.xadd(x, '*', 'f', 'v'), io.xadd(y, '*', 'f', 'v')]);
  if (name === 'GEOSEARCHSTORE') return io.geoadd(y, 0, 0, 'm');
  if (/^PF/.test(name)) return Promise.all([io.pfadd(x, 'm'), io.pfadd(y, 'n')]);
  if (/^(MSET|MSETNX)$/.test(name)) return null;
  return Promise.all([io.set(x, 'v'), io.set(y, 'w')]);
}

// --- main -----------------------------------------------------------------------

// --- ioredis ----------------------------------------------------------------------

async function ioredisCases(lib, IORedis, ctx) {
  const { io, port, a, far, relations } = ctx;
  const c = new IORedis.Cluster([{ host: '127.0.0.1', port }]);
  const rec = (kind, name, relation, extra) => ({ lib, kind, name, relation, ...extra });

  // Multi-key commands with keys on two masters, as methods and through call().
  for (const [name, call] of COMMANDS) {
    await record(io, rec('command', name, 'other-node', { method: name.toLowerCase() }),
      [a, far], () => call(c, a, far), () => seed(io, name, a, far));
  }
  for (const name of ['MGET', 'DEL']) {
    await record(io, rec('raw', name, 'other-node'), [a, far], () => c.call(name, a, far),
      () => Promise.all([io.set(a, 'v'), io.set(far, 'w')]));
  }

  // A client-wide keyPrefix: with a hash tag it puts every key in one slot.
  for (const [name, prefix] of [['mset-tagged-prefix', '{pfx}:'], ['mset-plain-prefix', 'pfx:']]) {
    const p = new IORedis.Cluster([{ host: '127.0.0.1', port }], { keyPrefix: prefix });
    await record(io, rec('prefix', name, 'other-node'), [prefix + a, prefix + far],
      () => p.mset(a, '1', far, '2'));
    p.disconnect();
  }

  // Pipelines, transactions and scripts: a first, then b, for each place of b.
  c.defineCommand('probeSet', { numberOfKeys: 2, lua: SCRIPT });
  for (const [relation, b] of Object.entries(relations)) {
    const sets = (p) => p.set(a, '1').set(b, '2');
    const both = () => Promise.all([io.set(a, 'v'), io.set(b, 'w')]);
    await record(io, rec('batch', 'pipeline', relation), [a, b], () => sets(c.pipeline()).exec());
    await record(io, rec('batch', 'pipeline-del', relation), [a, b],
      () => c.pipeline().del(a, b).exec(), both);
    await record(io, rec('batch', 'multi', relation), [a, b], () => sets(c.multi()).exec());
    await record(io, rec('script', 'eval', relation), [a, b], () => c.eval(SCRIPT, 2, a, b));
    await record(io, rec('script', 'evalsha', relation), [a, b],
      () => c.evalsha(SHA, 2, a, b), () => loadScript(io));
    await record(io, rec('script', 'defineCommand', relation), [a, b], () => c.probeSet(a, b));
    await record(io, rec('script', 'eval-undeclared', relation), [a, b],
      () => c.eval(UNDECLARED, 1, a, b));
    await record(io, rec('script', 'eval-undeclared-shebang', relation), [a, b],
      () => c.eval(SHEBANG, 1, a, b));
  }
  c.disconnect();
}

// --- node-redis -------------------------------------------------------------------

async function nodeRedisCases(lib, nodeRedis, ctx) {
  const { io, port, a, far, relations } = ctx;
  const rootNodes = [{ url: `redis://127.0.0.1:${port}` }];
  const connect = async (options) => {
    const c = nodeRedis.createCluster({ rootNodes, ...options });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  const close = (c) => (c.close ? c.close() : c.disconnect());
  // Keys pushed by parseCommand (node-redis 5 and 6), or returned first by
  // transformArguments (node-redis 4).
  const probeSet = nodeRedis.defineScript({
    NUMBER_OF_KEYS: 2,
    SCRIPT,
    parseCommand(parser, x, y) { parser.pushKey(x); parser.pushKey(y); },
    transformArguments(x, y) { return [x, y]; },
    transformReply: undefined,
  });
  const c = await connect({ scripts: { probeSet } });
  const rec = (kind, name, relation, extra) => ({ lib, kind, name, relation, ...extra });

  // Multi-key commands with keys on two masters, as methods and through
  // sendCommand(firstKey, isReadonly, args).
  for (const [name, , call, method] of COMMANDS) {
    await record(io, rec('command', name, 'other-node', { method: method || name }),
      [a, far], () => call(c, a, far), () => seed(io, name, a, far));
  }
  for (const name of ['MGET', 'DEL']) {
    await record(io, rec('raw', name, 'other-node'), [a, far],
      () => c.sendCommand(a, name === 'MGET', [name, a, far]),
      () => Promise.all([io.set(a, 'v'), io.set(far, 'w')]));
  }

  // keyPrefix is an option of node-redis 6 only.
  if (lib === 'node-redis') {
    for (const [name, prefix] of [['mset-tagged-prefix', '{pfx}:'], ['mset-plain-prefix', 'pfx:']]) {
      const p = await connect({ keyPrefix: prefix });
      await record(io, rec('prefix', name, 'other-node'), [prefix + a, prefix + far],
        () => p.mSet([[a, '1'], [far, '2']]));
      await close(p);
    }
  }

  for (const [relation, b] of Object.entries(relations)) {
    const sets = (p) => p.set(a, '1').set(b, '2');
    const cases = [
      ['batch', 'multi', (f) => sets(f.multi()).exec()],
      ['batch', 'execAsPipeline', (f) => sets(f.multi()).execAsPipeline()],
      ['script', 'eval', (f) => f.eval(SCRIPT, { keys: [a, b] })],
      ['script', 'evalsha', (f) => f.evalSha(SHA, { keys: [a, b] })],
      ['script', 'defineScript', (f) => f.probeSet(a, b)],
      ['script', 'eval-undeclared', (f) => f.eval(UNDECLARED, { keys: [a], arguments: [b] })],
      ['script', 'eval-undeclared-shebang',
        (f) => f.eval(SHEBANG, { keys: [a], arguments: [b] })],
    ];
    // Each on a fresh client, so that no case sees the slot map that another case's
    // MOVED replies left behind.
    for (const [kind, name, run] of cases) {
      const f = await connect({ scripts: { probeSet } });
      await record(io, rec(kind, name, relation), [a, b], () => run(f), () => loadScript(io));
      await close(f);
    }
  }
  await close(c);
}

// --- main -----------------------------------------------------------------------

async function main() {
  // The client that picks keys, seeds, flushes and looks at what was written.
  const io = new (load('ioredis').Cluster)([{ host: '127.0.0.1', port }]);
  const { keys, slots } = await pickKeys(io);
  const { a, same, near, far } = keys;
  const relations = { 'same-slot': same, 'same-node': near, 'other-node': far };
  const ctx = { io, port, a, far, relations };
  const versions = {};
  for (const [lib, pkg] of Object.entries(IOREDIS)) {
    versions[lib] = load(`${pkg}/package.json`).version;
    await ioredisCases(lib, load(pkg), ctx);
  }
  for (const [lib, pkg] of Object.entries(NODE_REDIS)) {
    versions[lib] = load(`${pkg}/package.json`).version;
    await nodeRedisCases(lib, load(pkg), ctx);
  }
  await flush(io);
  io.disconnect();
  return JSON.stringify({ versions, keys: slots, cases: records }, null, 1);
}

// Exit only once the report is written: process.exit() cuts short a pending write to
// a pipe.
main().then((report) => process.stdout.write(`${report}\n`, () => process.exit(0)), (e) => {
  console.error(e);
  process.exit(1);
});
