// State sync from JavaScript against the release package (Node + fake-indexeddb).
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  StateSync, ListCache, ResultCache, matchGlob, validatePattern, detectOverlaps,
  parseCacheControl, parseInvalidations, listCacheMeta, matchUriTemplate,
} from '../../js/node.mjs';

test('matchGlob reference rows and separators', () => {
  const rows = [
    ['a.*', 'a', false], ['a.*', 'a.', true], ['a.**', 'a', true], ['**.a', 'a', true],
    ['a.*.b', 'a..b', true], ['a.**.b.**.c', 'a.x.b.y.z.c', true], ['Sprints.get', 'sprints.get', false],
    ['**', '', true], ['billing.get_*', 'billing.get_invoice', true], ['billing.get_*', 'billing.get.x', false],
  ];
  for (const [p, n, expected] of rows) assert.equal(matchGlob(p, n), expected, `${p} vs ${n}`);
  assert.equal(matchGlob('billing__get_*', 'billing__get_invoice', { separator: '__' }), true);
});

test('validatePattern errors carry the stable phrases', () => {
  assert.equal(validatePattern('billing.get_*'), undefined);
  assert.throws(() => validatePattern(''), /must be a non-empty string/);
  assert.throws(() => validatePattern(42), /must be a non-empty string/);
  for (const bad of ['***', 'a..b', 'a b']) assert.throws(() => validatePattern(bad), /invalid segment/);
});

test('StateSync: first match, defaults, frozen memoized resolution, validation', () => {
  const sync = new StateSync({
    policies: [
      { match: 'sprints.update', invalidates: ['sprints.*'] },
      { match: 'sprints.*', cacheControl: 'no-store' },
      { match: 'countries.*', cacheControl: 'immutable' },
    ],
    defaults: { cacheControl: 'no-store' },
  });
  const r = sync.resolve('sprints.update');
  assert.deepEqual({ ...r, invalidates: [...r.invalidates] }, { cacheControl: 'no-store', invalidates: ['sprints.*'] });
  assert.equal(sync.resolve('sprints.update'), r, 'memo returns the identical object');
  assert.ok(Object.isFrozen(r) && Object.isFrozen(r.invalidates));
  assert.equal(sync.resolve('countries.list').cacheControl, 'immutable');
  assert.equal(sync.resolve('unmatched.tool').cacheControl, 'no-store');
  assert.equal(new StateSync({ policies: [] }).resolve('x'), null);
  const shadow = new StateSync({ policies: [{ match: 'billing.*' }, { match: 'billing.refund', invalidates: ['billing.*'] }] });
  assert.equal(shadow.resolve('billing.refund'), null, 'a match-only policy shadows a later specific one');
  const bad = (policies) => () => new StateSync({ policies });
  assert.throws(bad([{ match: '' }]), /must be a non-empty string/);
  assert.throws(bad([{ match: 'a..b' }]), /invalid segment/);
  assert.throws(bad([{ match: 'a', cacheControl: 'max-age=60' }]), /invalid cacheControl/);
  assert.throws(bad([{ match: 'a', invalidates: 'b.*' }]), /must be an array/);
  assert.throws(bad([{ match: 'a', invalidates: ['b..c'] }]), /invalid segment/);
});

test('detectOverlaps counts shadowed later policies', () => {
  assert.equal(detectOverlaps([{ match: 'sprints.*' }, { match: 'sprints.update' }]).length, 1);
  const three = detectOverlaps([{ match: '**' }, { match: 'billing.*' }, { match: 'billing.pay' }]);
  assert.equal(three.length, 3);
  assert.deepEqual(three.map((o) => [o.earlier, o.later]), [[0, 1], [0, 2], [1, 2]]);
  assert.equal(detectOverlaps([{ match: 'billing.pay' }, { match: 'billing.*' }]).length, 0);
});

test('decorateTools / decorateResult byte-for-byte, hooks swallowed', async () => {
  const seen = [];
  const sync = new StateSync({
    policies: [
      { match: 'sprints.get', cacheControl: 'no-store' },
      { match: 'tasks.update', invalidates: ['tasks.*', 'sprints.*'] },
      { match: 'tool*', invalidates: ['x'] },
    ],
    onInvalidation: (e) => { seen.push(e); throw new Error('observer bug'); },
    notificationSink: async (n) => { seen.push(n); throw new Error('async sink bug'); },
  });
  const tools = [{ name: 'sprints.get', description: 'Get sprint details.' }, { name: 'x.y', description: 'd' }];
  const out = sync.decorateTools(tools);
  assert.equal(out[0].description, 'Get sprint details. [Cache-Control: no-store]');
  assert.equal(out[1], tools[1]);
  assert.equal(tools[0].description, 'Get sprint details.');
  const result = { content: [{ type: 'text', text: '{"ok":true}' }] };
  const decorated = sync.decorateResult('tasks.update', result);
  assert.deepEqual(decorated.content[0], { type: 'text', text: '<cache_invalidation cause="tasks.update" domains="tasks.*, sprints.*" />' });
  assert.equal(result.content.length, 1, 'input not mutated');
  assert.equal(seen[0].causedBy, 'tasks.update');
  assert.deepEqual(seen[0].patterns, ['tasks.*', 'sprints.*']);
  assert.match(seen[0].timestamp, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(seen.slice(1), [
    { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/tasks.*' } },
    { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/sprints.*' } },
  ]);
  const evil = sync.decorateResult('tool<"evil">', { content: [] });
  assert.equal(evil.content[0].text, '<cache_invalidation cause="tool&lt;&quot;evil&quot;&gt;" domains="x" />');
  const failed = { isError: true, content: [{ type: 'text', text: 'no' }] };
  assert.equal(sync.decorateResult('tasks.update', failed), failed, 'error results untouched');
  await new Promise((r) => setTimeout(r, 10)); // an unhandled rejection would fail the run
});

test('parseCacheControl and parseInvalidations', () => {
  assert.equal(parseCacheControl('Get. [Cache-Control: no-store]'), 'no-store');
  assert.equal(parseCacheControl('List. [Cache-Control: immutable]'), 'immutable');
  assert.equal(parseCacheControl('Plain.'), null);
  assert.equal(parseCacheControl(undefined), null);
  const result = { content: [
    { type: 'text', text: '<cache_invalidation cause="a&amp;b" domains="x.*, y.get_*" />' },
    { type: 'text', text: '[System: Cache invalidated for sprints.* — caused by sprints.update]' },
    { type: 'text', text: '{"ok":true}' },
  ] };
  assert.deepEqual(parseInvalidations(result), [
    { cause: 'a&b', domains: ['x.*', 'y.get_*'] },
    { cause: 'sprints.update', domains: ['sprints.*'] },
  ]);
  assert.deepEqual(parseInvalidations('nothing here'), []);
});

test('a refund invalidates the invoice reference (fake-indexeddb)', async () => {
  const cache = new ResultCache({ dbName: `sync-${process.pid}` });
  const invoice = { ok: true, lines: Array.from({ length: 150 }, (_, i) => ({ sku: `SKU-${i}`, cents: 1000 + i })) };
  const shown = await cache.afterToolCall('billing.get_invoice', invoice, { convId: 'c' });
  const server = new StateSync({ policies: [{ match: 'billing.refund', invalidates: ['billing.get_*'] }] });
  const refund = server.decorateResult('billing.refund', { content: [{ type: 'text', text: '{"ok":true}' }] });
  const visible = await cache.afterToolCall('billing.refund', refund, { convId: 'c' });
  assert.match(visible.content[0].text, /^<cache_invalidation cause="billing.refund"/);
  const before = await cache.beforeToolCall('report.render', { data_uri: shown._cache_uri }, { convId: 'c' });
  assert.equal(before.dispatch, false);
  assert.equal(before.envelope.error, `invalid_args: cache URI ${shown._cache_uri} is stale (invalidated by billing.refund)`);
  assert.deepEqual(before.envelope._stale_uris, [shown._cache_uri]);
  assert.match(before.envelope.fix_hint, /billing\.get_invoice/);
  assert.deepEqual(await cache.lookup(shown._cache_uri), { status: 'stale', cause: 'billing.refund', sourceToolName: 'billing.get_invoice' });
});

test('listCacheMeta always emits ttlMs', () => {
  assert.deepEqual(listCacheMeta({ ttlMs: 0 }), { ttlMs: 0 });
  assert.deepEqual(listCacheMeta({ ttlMs: 60_000, scope: 'public' }), { ttlMs: 60_000, cacheScope: 'public' });
  assert.deepEqual(listCacheMeta({ ttlMs: -5, scope: 'private' }), { ttlMs: 0, cacheScope: 'private' });
});

test('ListCache: TTL, scopes, pages, invalid cursor, notifications, serve-stale', () => {
  let now = 1_000;
  const lists = new ListCache({ now: () => now });
  const page1 = { tools: [{ name: 'a' }], nextCursor: 'p2', ttlMs: 5_000, cacheScope: 'public' };
  const page2 = { tools: [{ name: 'b' }], ttlMs: 5_000, cacheScope: 'public' };
  lists.put('tools/list', {}, page1, null);
  lists.put('tools/list', { cursor: 'p2' }, page2, null);
  assert.equal(lists.get('tools/list', {}, 'user-1').result, page1, 'public: served across auth contexts');
  assert.equal(lists.get('tools/list', { cursor: 'p2' }).result, page2, 'pages cached independently');
  now = 5_999;
  assert.equal(lists.get('tools/list', {}).stale, false);
  now = 6_000;
  assert.equal(lists.get('tools/list', {}), null, 'fresh only while now < receivedAt + ttlMs');
  assert.deepEqual(lists.get('tools/list', {}, null, { allowStale: true }).stale, true);
  const mine = { resources: [], ttlMs: 10_000, cacheScope: 'private' };
  lists.put('resources/list', {}, mine, 'alice');
  assert.equal(lists.get('resources/list', {}, 'alice').result, mine);
  assert.equal(lists.get('resources/list', {}, 'bob'), null, 'private never across auth contexts');
  assert.equal(lists.get('resources/list', {}), null);
  lists.put('prompts/list', {}, { prompts: [] }, null);
  assert.equal(lists.get('prompts/list', {}), null, 'missing ttlMs = 0');
  lists.put('prompts/list', {}, { prompts: [], ttlMs: -1 }, null);
  assert.equal(lists.get('prompts/list', {}), null, 'negative ttlMs = 0');
  assert.equal(lists.invalidateList('tools/list'), 2, 'invalid cursor drops every page');
  lists.put('tools/list', {}, page1, null);
  assert.equal(lists.handleNotification({ method: 'notifications/tools/list_changed' }), 1);
  lists.put('resources/read', { uri: 'file:///a' }, { contents: [], ttlMs: 9_999, cacheScope: 'public' }, null);
  assert.equal(lists.handleNotification({ method: 'notifications/resources/updated', params: { uri: 'file:///b' } }), 0);
  assert.equal(lists.handleNotification({ method: 'notifications/resources/updated', params: { uri: 'file:///a' } }), 1);
});

test('matchUriTemplate level 1', () => {
  assert.deepEqual(matchUriTemplate('file:///{path}', 'file:///a'), { path: 'a' });
  assert.equal(matchUriTemplate('file:///{path}', 'file:///a/b'), null);
  assert.deepEqual(matchUriTemplate('users/{id}/posts/{post}', 'users/7/posts/x-1'), { id: '7', post: 'x-1' });
  assert.equal(matchUriTemplate('a.b/{x}', 'aXb/1'), null);
  assert.deepEqual(matchUriTemplate('q?{x}', 'q?1'), { x: '1' });
  assert.equal(matchUriTemplate('q?{x}', 'q1'), null);
  assert.equal(matchUriTemplate('a+[b]|{x}', 'a+[b]|y').x, 'y');
});
