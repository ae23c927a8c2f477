// The read-back tools (cacheTools) through the release package in Node: every tool on arrays,
// strings, objects, pointers, empty and huge payloads; paging visits every item exactly once;
// derived references through substituteCacheUris, with staleness, eviction and clearing of their
// source propagated; conversation scope; byte-identical repeated answers; hostile arguments
// answered with isError; the input schemas compile and validate with Ajv.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';

import { ResultCache, cacheTools, parseCacheUri } from '../../pkg/node.mjs';

let n = 0;
const fresh = (options = {}) => new ResultCache({ storage: 'memory', ...options, dbName: `readback-${process.pid}-${n++}` });
/**
 * A read-back tool's answer (its structuredContent): the fields these tests read.
 * @typedef {{
 *   total: number, offset: number, items: { i: number }[], next_offset?: number,
 *   too_large: { index: number, uri: string, chars: number },
 *   keys: { key: string, type: string, size: number, pointer: string | null, value?: unknown }[],
 *   text: string, total_chars: number, value?: unknown,
 *   matches: { pointer: string | null, snippet: string }[], total_matches: number,
 *   count: number, sample: unknown[], _cache_uri: string,
 * }} Answer
 */
const rows = (/** @type {number} */ count) => Array.from({ length: count }, (_, i) => ({ hour: `2026-12-01T${String(i % 24).padStart(2, '0')}:00Z`, i, cpu: (i * 37) % 101, host: i % 3 ? 'web-1' : 'db-1' }));

/**
 * @param {import('../../pkg/node/mcp_result_cache.js').ResultCache} cache
 * @param {unknown} payload
 * @returns {Promise<string>}
 */
async function stored(cache, payload, convId = 'c1', sourceToolName = 'metrics.query') {
  const uri = await cache.cacheToolResult({ payload, convId, sourceToolName, threshold: 0 });
  assert.equal(typeof uri, 'string');
  return /** @type {string} */ (uri);
}

/**
 * @param {import('../../pkg/node/index.mjs').CacheReadToolResult} result
 * @returns {Answer}
 */
const answer = (result) => {
  assert.notEqual(result.isError, true, result.content?.[0]?.text);
  assert.equal(result.content[0].type, 'text');
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return /** @type {Answer} */ (result.structuredContent);
};
/**
 * @param {import('../../pkg/node/index.mjs').CacheReadToolResult} result
 * @returns {import('../../pkg/node/mcp_result_cache.js').ToolEnvelope}
 */
const refusal = (result) => {
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined);
  return JSON.parse(result.content[0].text);
};

test('listTools answers three tools whose input schemas compile with Ajv (strict) and validate calls', async () => {
  const tools = cacheTools(fresh(), { convId: 'c1' });
  const { tools: list } = await tools.listTools();
  assert.deepEqual(list.map((/** @type {import('../../pkg/node/index.mjs').CacheReadTool} */ t) => t.name), ['cache_read', 'cache_search', 'cache_select']);
  const ajv = new (/** @type {typeof import('ajv').default} */ (/** @type {unknown} */ (Ajv)))({ strict: true });
  const [read, search, select] = list.map((/** @type {import('../../pkg/node/index.mjs').CacheReadTool} */ t) => ajv.compile(t.inputSchema));
  assert.ok(read({ uri: 'mcp+cache://c1/abcdefgh', offset: 0, limit: 10 }));
  assert.ok(!read({ offset: 1 }), 'uri is required');
  assert.ok(!read({ uri: 'x', extra: 1 }), 'no other properties');
  assert.ok(search({ uri: 'mcp+cache://c1/abcdefgh', query: 'db' }));
  assert.ok(!search({ uri: 'mcp+cache://c1/abcdefgh' }), 'query is required');
  assert.ok(select({ uri: 'u', where: [{ field: 'cpu', op: '>=', value: 90 }], fields: ['hour'], limit: 5 }));
  assert.ok(!select({ uri: 'u', where: [{ field: 'cpu', op: 'like', value: 90 }] }), 'op is an enum');
  assert.ok(!select({ uri: 'u', where: [{ field: 'cpu', op: '=', value: { deep: 1 } }] }), 'value is a primitive');
  const custom = await cacheTools(fresh(), { prefix: 'mem.' }).listTools();
  assert.deepEqual(custom.tools.map((/** @type {import('../../pkg/node/index.mjs').CacheReadTool} */ t) => t.name), ['mem.read', 'mem.search', 'mem.select']);
});

test('bad options reject the first call with a TypeError', async () => {
  for (const [cache, options] of [[null, {}], [{}, {}], [fresh(), { prefix: 'has space' }], [fresh(), { maxChars: 10 }], [fresh(), { convId: {} }], [fresh(), 5]]) {
    await assert.rejects(cacheTools(cache, options).listTools(), TypeError);
  }
});

test('options and calls that cannot be read are a TypeError naming what could not be read', async () => {
  const cache = fresh();
  const trap = new Proxy({}, { get() { throw new Error('trap'); } });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const unreadable = (/** @type {string} */ what) => ({ name: 'TypeError', message: new RegExp(`could not read ${what} \\(a getter threw, or the object is a revoked Proxy\\)`) });
  // The options: rejecting the first call, as every other bad option does.
  await assert.rejects(cacheTools(cache, { get convId() { throw new Error('getter'); } }).listTools(), unreadable('`convId`'));
  await assert.rejects(cacheTools(cache, { get maxChars() { throw new Error('getter'); } }).listTools(), unreadable('`maxChars`'));
  await assert.rejects(cacheTools(cache, trap).listTools(), unreadable('`convId`'));
  await assert.rejects(cacheTools(cache, revoked).listTools(), unreadable('the options'));
  await assert.rejects(cacheTools(trap, {}).listTools(), unreadable('the cache'));
  // A convId function is read at every call: its getter throwing then rejects that call.
  let reads = 0;
  const later = cacheTools(cache, { get convId() { reads += 1; if (reads > 1) throw new Error('getter'); return () => 'c1'; } });
  await assert.rejects(later.callTool({ name: 'cache_read', arguments: { uri: 'mcp+cache://c1/AAAAAAAAAAAA' } }), unreadable('`convId`'));
  // The call: its name, its arguments, the call itself.
  const tools = cacheTools(cache, { convId: 'c1' });
  await assert.rejects(tools.callTool({ name: 'cache_read', get arguments() { throw new Error('getter'); } }), unreadable('`arguments`'));
  await assert.rejects(tools.callTool({ name: 'cache_read', arguments: trap }), unreadable('`arguments`'));
  await assert.rejects(tools.callTool({ name: 'cache_read', arguments: revoked }), unreadable('`arguments`'));
  await assert.rejects(tools.callTool({ get name() { throw new Error('getter'); } }), unreadable('`name`'));
  await assert.rejects(tools.callTool({ name: trap }), unreadable('`name`'));
  await assert.rejects(tools.callTool({ name: revoked }), unreadable('`name`'));
  await assert.rejects(tools.callTool(revoked), unreadable('the call'));
  // The tools keep working, and a name that is no string is still an unknown tool.
  assert.match(refusal(await tools.callTool({ name: { n: 1 } })).error, /^invalid_args: unknown tool "\[object Object\]"/);
  assert.match(refusal(await tools.callTool({ name: 'cache_read', arguments: { uri: 'mcp+cache://c1/AAAAAAAAAAAA' } })).error, /could not be resolved/);
});

test('cache_read pages an array by whole items within maxChars, and paging 100 000 rows visits each exactly once', async () => {
  const cache = fresh();
  const data = rows(100_000);
  const uri = await stored(cache, { ok: true, rows: data });
  const tools = cacheTools(cache, { convId: 'c1' });
  let offset = 0;
  let seen = 0;
  let pages = 0;
  for (;;) {
    const result = await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/rows`, offset, limit: 1000 } });
    assert.ok(result.content[0].text.length <= 4000);
    const page = answer(result);
    assert.equal(page.total, 100_000);
    assert.equal(page.offset, offset);
    page.items.forEach((item, k) => assert.equal(item.i, offset + k));
    seen += page.items.length;
    pages += 1;
    if (page.next_offset === undefined) break;
    assert.equal(page.next_offset, offset + page.items.length);
    offset = page.next_offset;
  }
  assert.equal(seen, 100_000);
  assert.ok(pages > 100, `${pages} pages`);
  const limited = answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/rows`, offset: 99_998, limit: 5 } }));
  assert.deepEqual(limited.items.map((r) => r.i), [99_998, 99_999]);
  assert.equal(limited.next_offset, undefined);
});

test('cache_read names an item too large for one answer instead of skipping it silently', async () => {
  const cache = fresh();
  const uri = await stored(cache, [{ a: 1 }, { big: 'x'.repeat(10_000) }, { a: 3 }]);
  const tools = cacheTools(cache, { convId: 'c1' });
  const first = answer(await tools.callTool({ name: 'cache_read', arguments: { uri } }));
  assert.deepEqual(first.items, [{ a: 1 }]);
  assert.equal(first.next_offset, 1);
  const second = answer(await tools.callTool({ name: 'cache_read', arguments: { uri, offset: 1 } }));
  assert.deepEqual(second.items, []);
  assert.deepEqual(second.too_large, { index: 1, uri: `${uri}#/1`, chars: 10_010 });
  assert.equal(second.next_offset, 2);
  const inside = answer(await tools.callTool({ name: 'cache_read', arguments: { uri: second.too_large.uri } }));
  assert.deepEqual(inside.keys, [{ key: 'big', type: 'string', size: 10_002, pointer: `${uri}#/1/big` }]);
});

test('cache_read names an object member too large to list (a very long key) and pages past it', async () => {
  const cache = fresh();
  const prompt = 'Summarize the following customer complaint. '.repeat(45);
  const uri = await stored(cache, { first: 1, [prompt]: 'answer', last: 3 });
  const tools = cacheTools(cache, { convId: 'c1' });
  const first = answer(await tools.callTool({ name: 'cache_read', arguments: { uri } }));
  assert.deepEqual(first.keys.map((k) => k.key), ['first']);
  assert.equal(first.next_offset, 1);
  const second = await tools.callTool({ name: 'cache_read', arguments: { uri, offset: 1 } });
  assert.ok(second.content[0].text.length <= 4000);
  const named = answer(second);
  assert.deepEqual(named.keys, []);
  assert.equal(named.too_large.index, 1);
  assert.equal(named.too_large.uri, `${uri}#/${prompt}`);
  assert.ok(named.too_large.chars > 4000, `${named.too_large.chars}`);
  assert.equal(named.next_offset, 2);
  assert.equal(answer(await tools.callTool({ name: 'cache_read', arguments: { uri: named.too_large.uri } })).text, 'answer');
  const third = answer(await tools.callTool({ name: 'cache_read', arguments: { uri, offset: 2 } }));
  assert.deepEqual(third.keys.map((k) => k.key), ['last']);
  assert.equal(third.next_offset, undefined);
});

test('cache_read pages a string by characters (JSON escapes counted, surrogate pairs kept whole)', async () => {
  const cache = fresh();
  const text = `${'line "one"\n'.repeat(500)}😀end`;
  const uri = await stored(cache, { log: text });
  const tools = cacheTools(cache, { convId: 'c1', maxChars: 1000 });
  let offset = 0;
  let joined = '';
  for (;;) {
    const result = await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/log`, offset } });
    assert.ok(result.content[0].text.length <= 1000, `${result.content[0].text.length}`);
    const page = answer(result);
    assert.equal(page.total_chars, text.length);
    assert.ok(!/[\uD800-\uDBFF]$/.test(page.text), 'no lone high surrogate at a page end');
    joined += page.text;
    if (page.next_offset === undefined) break;
    offset = page.next_offset;
  }
  assert.equal(joined, text);
  const some = answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/log`, offset: 5, limit: 5 } }));
  assert.equal(some.text, '"one"');
});

test('cache_read with limit 1 pages a surrogate pair as one character, never half of it', async () => {
  const cache = fresh();
  const text = 'a😀b🎉';
  const uri = await stored(cache, { log: text });
  const tools = cacheTools(cache, { convId: 'c1' });
  /** @type {string[]} */
  const pages = [];
  let offset = 0;
  for (;;) {
    const page = answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/log`, offset, limit: 1 } }));
    pages.push(page.text);
    if (page.next_offset === undefined) break;
    offset = page.next_offset;
  }
  assert.deepEqual(pages, ['a', '😀', 'b', '🎉']);
});

test('a long #pointer never makes an answer longer than maxChars: pages move on, or the call is refused as too long', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1', maxChars: 1000 });
  const text = 'abcdefghij'.repeat(100);
  const kinds = { string: text, array: [{ big: 'x'.repeat(300) }, 2, 'three'], object: { a: 1, [`k${'y'.repeat(400)}`]: 2, c: 'z'.repeat(300) }, number: 42 };
  for (const keyLength of [100, 500, 700, 800, 900, 1100, 2000]) {
    const key = 'q'.repeat(keyLength);
    for (const [kind, value] of Object.entries(kinds)) {
      const reference = `${await stored(cache, { [key]: value })}#/${key}`;
      const label = `${kind} at a ${keyLength}-character key`;
      let offset = 0;
      let joined = '';
      let visited = 0;
      for (let pages = 0; ; pages += 1) {
        assert.ok(pages < 2000, `${label}: paging never ends`);
        const result = await tools.callTool({ name: 'cache_read', arguments: { uri: reference, offset } });
        assert.ok(result.content[0].text.length <= 1000, `${label} at ${offset}: ${result.content[0].text.length} characters`);
        if (result.isError) {
          const { error, fix_hint: hint } = refusal(result);
          assert.match(error, /^invalid_args: uri is too long \(\d+ characters\) for an answer within maxChars \(1000\)/, label);
          assert.match(hint, /drop the last \/key of the #pointer/, label);
          assert.ok(keyLength >= 800, `${label}: refused`);
          break;
        }
        const page = answer(result);
        joined += page.text ?? '';
        visited += (page.items ?? page.keys ?? []).length + (page.too_large ? 1 : 0);
        if (page.too_large && page.too_large.uri !== null) assert.equal(page.too_large.uri, `${reference}/${page.too_large.index === 1 && kind === 'object' ? `k${'y'.repeat(400)}` : page.too_large.index}`);
        if (page.next_offset === undefined) {
          if (kind === 'string') assert.equal(joined, text, label);
          if (kind === 'array' || kind === 'object') assert.equal(visited, 3, label);
          break;
        }
        assert.ok(page.next_offset > offset, `${label}: next_offset ${page.next_offset} after ${offset}`);
        offset = page.next_offset;
      }
    }
    const search = await tools.callTool({ name: 'cache_search', arguments: { uri: `${await stored(cache, { [key]: text })}#/${key}`, query: 'abc' } });
    assert.ok(search.content[0].text.length <= 1000, `search at a ${keyLength}-character key: ${search.content[0].text.length} characters`);
    if (search.isError) assert.match(refusal(search).error, /^invalid_args: uri is too long/);
  }
});

test('cache_read lists an object\'s members with pointers the cache resolves; primitives and empty values', async () => {
  const cache = fresh();
  const uri = await stored(cache, { ok: true, 'a/b~c': [1, 2], rows: [], note: 'hi', n: null });
  const tools = cacheTools(cache, { convId: 'c1' });
  const listing = answer(await tools.callTool({ name: 'cache_read', arguments: { uri } }));
  assert.deepEqual(listing, {
    uri,
    total_keys: 5,
    offset: 0,
    keys: [
      { key: 'ok', type: 'boolean', size: 4, pointer: `${uri}#/ok`, value: true },
      { key: 'a/b~c', type: 'array', size: 5, pointer: `${uri}#/a~1b~0c` },
      { key: 'rows', type: 'array', size: 2, pointer: `${uri}#/rows` },
      { key: 'note', type: 'string', size: 4, pointer: `${uri}#/note`, value: 'hi' },
      { key: 'n', type: 'null', size: 4, pointer: `${uri}#/n`, value: null },
    ],
  });
  const escaped = answer(await tools.callTool({ name: 'cache_read', arguments: { uri: listing.keys[1].pointer } }));
  assert.deepEqual(escaped.items, [1, 2]);
  assert.deepEqual(answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/rows` } })), { uri: `${uri}#/rows`, total: 0, offset: 0, items: [] });
  assert.deepEqual(answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/ok` } })), { uri: `${uri}#/ok`, type: 'boolean', value: true });
  const past = refusal(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/rows`, offset: 3 } }));
  assert.match(past.error, /^invalid_args: offset 3 is past the end/);
});

test('cache_search finds string and number leaves case-insensitively, in document order, with usable pointers', async () => {
  const cache = fresh();
  const data = rows(5000);
  const uri = await stored(cache, { ok: true, rows: data });
  const tools = cacheTools(cache, { convId: 'c1' });
  const found = answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'DB-1', limit: 3 } }));
  assert.equal(found.total_matches, data.filter((r) => r.host === 'db-1').length);
  assert.deepEqual(found.matches.map((m) => m.pointer), ['/rows/0/host', '/rows/3/host', '/rows/6/host']);
  assert.equal(found.matches[0].snippet, 'db-1');
  const row = answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#${String(found.matches[1].pointer).replace(/\/host$/, '')}` } }));
  assert.equal(/** @type {{ value?: unknown }} */ (row.keys.find((k) => k.key === 'i')).value, 3);
  const numbers = answer(await tools.callTool({ name: 'cache_search', arguments: { uri: `${uri}#/rows`, query: '4999' } }));
  assert.deepEqual(numbers.matches, [{ pointer: '/rows/4999/i', snippet: '4999' }]);
  const none = answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'no such thing' } }));
  assert.deepEqual(none, { uri, query: 'no such thing', total_matches: 0, matches: [] });
  const many = await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'web', limit: 100 } });
  assert.ok(many.content[0].text.length <= 4000);
  assert.ok(answer(many).matches.length < answer(many).total_matches);
});

test('cache_search snippets hold the match (a character that lower-cases longer before it) and never half a surrogate pair', async () => {
  const cache = fresh();
  const note = `${'İSTANBUL ŞUBESİ İÇİN İADE İŞLEMİ. '.repeat(6)}Invoice INV-7781 refunded. ${'Ek bilgi yok. '.repeat(10)}`;
  const emoji = `${'😀'.repeat(30)}xneedle${'😀'.repeat(30)}`;
  const uri = await stored(cache, { rows: [{ id: 1, note }], s: emoji, t: `${'😀'.repeat(30)}needle${'😀'.repeat(30)}` });
  const tools = cacheTools(cache, { convId: 'c1' });
  const found = answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'inv-7781' } }));
  assert.equal(found.total_matches, 1);
  assert.equal(found.matches[0].pointer, '/rows/0/note');
  assert.match(found.matches[0].snippet, /^….{40}INV-7781.{40}…$/u);
  const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  const pairs = answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'NEEDLE' } }));
  assert.equal(pairs.total_matches, 2);
  for (const { snippet } of pairs.matches) {
    assert.doesNotMatch(snippet, loneSurrogate, JSON.stringify(snippet));
    assert.match(snippet, /^…😀+x?needle😀+…$/u);
  }
  // "İ" is matched as "i", one character for one: the Turkish capital is found by either case.
  const turkish = answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'istanbul şubesi' } }));
  assert.equal(turkish.total_matches, 1);
  assert.match(turkish.matches[0].snippet, /^İSTANBUL ŞUBESİ/);
  assert.equal(answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'İşlemi' } })).total_matches, 1);
  const selected = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'note', op: 'contains', value: 'istanbul' }] } }));
  assert.equal(selected.count, 1, 'cache_select contains folds case as cache_search does');
});

test('cache_search answers the pointer cache_read lists for a key, null where no reference can carry it', async () => {
  const cache = fresh();
  const long = 'k'.repeat(2100);
  const uri = await stored(cache, { 'Q1\tsales': [{ note: 'needle' }], 'line\nbreak': 'needle 2', '\uD800x': 'needle 3', 'a/b~c': ['needle 4'], [long]: 'needle 5', '😀': 'needle 6' });
  const tools = cacheTools(cache, { convId: 'c1' });
  const found = answer(await tools.callTool({ name: 'cache_search', arguments: { uri, query: 'needle' } }));
  assert.deepEqual(found.matches.map((m) => m.pointer), [null, null, null, '/a~1b~0c/0', null, '/😀']);
  // Each listed pointer reads its value; the listing of the entry agrees key by key.
  for (const { pointer } of found.matches.filter((m) => m.pointer !== null)) {
    assert.match(answer(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#${pointer}` } })).text, /^needle/);
  }
  const listing = answer(await tools.callTool({ name: 'cache_read', arguments: { uri, limit: 6 } }));
  assert.deepEqual(listing.keys.map((k) => k.pointer), [null, null, null, `${uri}#/a~1b~0c`, null, `${uri}#/😀`]);
  // From a pointer inside: the pointer is still from the entry's root.
  const inside = answer(await tools.callTool({ name: 'cache_search', arguments: { uri: `${uri}#/a~1b~0c`, query: 'needle' } }));
  assert.deepEqual(inside.matches, [{ pointer: '/a~1b~0c/0', snippet: 'needle 4' }]);
});

test('a uri whose #fragment is no JSON Pointer is refused as such, before any read, as the cache parses it', async () => {
  /** @type {string[]} */
  const events = [];
  const cache = fresh({ onEvent: (/** @type {{ kind: string }} */ e) => events.push(e.kind) });
  const uri = await stored(cache, { rows: [1, 2, 3], 'a~b': 1 });
  const tools = cacheTools(cache, { convId: 'c1' });
  const fragments = ['', '/', 'rows', '/rows', '/rows/~2', '/rows/~', '/a~0b', '/a~1b', '~1', 'rows/0', '/a\u0001', '/a\u007f', '/a\u0085', '/a\uD800', '/a\uDC00b',
    '/😀', '/\u2028', `/${'é'.repeat(1023)}`, `/${'é'.repeat(1024)}`, `/${'x'.repeat(2047)}`, `/${'x'.repeat(2048)}`];
  for (const fragment of fragments) {
    events.length = 0;
    const result = await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#${fragment}` } });
    const label = JSON.stringify(fragment).slice(0, 40);
    if (parseCacheUri(`${uri}#${fragment}`) !== null) {
      // A pointer the cache parses is looked up: an answer, or the cache's envelope.
      assert.ok(!result.isError || refusal(result).error.startsWith('invalid_args: cache URI '), label);
      continue;
    }
    const envelope = refusal(result);
    assert.match(envelope.error, /^invalid_args: the #fragment of uri is not a JSON Pointer/, label);
    assert.match(envelope.fix_hint, /JSON Pointer/, label);
    assert.doesNotMatch(envelope.fix_hint, /Re-call/, label);
    assert.deepEqual(events, [], `${label}: no read`);
  }
  const noSlash = refusal(await tools.callTool({ name: 'cache_search', arguments: { uri: `${uri}#rows`, query: '1' } }));
  assert.match(noSlash.error, /must start with "\/"/);
  const badEscape = refusal(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows/~2` } }));
  assert.match(badEscape.error, /"~" must be followed by 0 or 1/);
});

test('cache_select stores the matching rows as a derived reference that substituteCacheUris resolves', async () => {
  const cache = fresh();
  const data = rows(240);
  const uri = await stored(cache, { ok: true, rows: data });
  const tools = cacheTools(cache, { convId: 'c1' });
  const where = [{ field: 'cpu', op: '>=', value: 90 }, { field: 'host', op: 'contains', value: 'WEB' }];
  const selected = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows`, where, fields: ['hour', 'cpu'] } }));
  const expected = data.filter((r) => r.cpu >= 90 && r.host.includes('web')).map(({ hour, cpu }) => ({ hour, cpu }));
  assert.equal(selected.count, expected.length);
  assert.deepEqual(selected.sample, expected.slice(0, selected.sample.length));
  assert.ok(selected.sample.length > 0);
  const resolved = await cache.substituteCacheUris({ data_uri: selected._cache_uri }, { convId: 'c1' });
  // The derived entry is the source's data: it resolves with the source's tool.
  assert.deepEqual(resolved, { ok: true, args: { data: expected }, sources: [{ uri: selected._cache_uri, sourceToolName: 'metrics.query' }] });
  const last48 = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: '[{"field":"i","op":">=","value":192}]' } }));
  assert.equal(last48.count, 48);
  const limited = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows`, limit: 2 } }));
  assert.equal(limited.count, 2);
  const ofDerived = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: last48._cache_uri, where: [{ field: 'i', op: '<', value: 200 }] } }));
  assert.equal(ofDerived.count, 8);
  const entries = await cache.entries({ convId: 'c1' });
  assert.equal(/** @type {import('../../pkg/node/mcp_result_cache.js').CacheEntryInfo} */ (entries.find((e) => e.uri === ofDerived._cache_uri)).derivedFrom, last48._cache_uri);
});

test('repeated calls answer byte-identical text (cache_select reuses its reference while it lasts)', async () => {
  const cache = fresh();
  const uri = await stored(cache, { ok: true, rows: rows(500) });
  const tools = cacheTools(cache, { convId: 'c1' });
  for (const call of [
    { name: 'cache_read', arguments: { uri: `${uri}#/rows`, offset: 7 } },
    { name: 'cache_read', arguments: { uri } },
    { name: 'cache_search', arguments: { uri, query: '12' } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'cpu', op: '<', value: 5 }] } },
  ]) {
    const [a, b] = [await tools.callTool(call), await tools.callTool(call)];
    assert.equal(a.content[0].text, b.content[0].text, call.name);
  }
});

test('a derived reference is refused once its source is stale, evicted or cleared', async () => {
  const now = { t: 1_000_000 };
  const cache = fresh({ now: () => now.t });
  const tools = cacheTools(cache, { convId: 'c1' });
  const select = async (/** @type {string} */ uri) => answer(await tools.callTool({ name: 'cache_select', arguments: { uri, where: [{ field: 'i', op: '<', value: 10 }] } }))._cache_uri;
  // Stale: an invalidation of the source's tool.
  const a = await stored(cache, rows(50), 'c1', 'metrics.query');
  const derived = await select(a);
  const twice = await select(derived);
  await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' });
  for (const uri of [derived, twice]) {
    const outcome = await cache.substituteCacheUris({ data_uri: uri }, { convId: 'c1' });
    assert.equal(outcome.ok, false);
    assert.deepEqual(outcome.envelope._stale_uris, [uri]);
    assert.match(outcome.envelope.fix_hint, /metrics\.query/);
    assert.deepEqual(await cache.lookup(uri, { convId: 'c1' }), { status: 'stale', cause: 'metrics.reset', sourceToolName: 'metrics.query' });
  }
  const staleRead = refusal(await tools.callTool({ name: 'cache_read', arguments: { uri: derived } }));
  assert.deepEqual(staleRead._stale_uris, [derived]);
  // Evicted by age: the source goes, the (newer) derived entry is refused as missing.
  const b = await stored(cache, rows(50), 'c1', 'other.tool');
  now.t += 10_000;
  const derivedB = await select(b);
  now.t += 1_000;
  await cache.evictOlderThan({ maxAgeMs: 5_000 });
  assert.equal((await cache.lookup(b, { convId: 'c1' })).status, 'miss');
  assert.equal((await cache.lookup(derivedB, { convId: 'c1' })).status, 'miss');
  assert.deepEqual(/** @type {{ envelope: import('../../pkg/node/mcp_result_cache.js').ToolEnvelope }} */ (await cache.substituteCacheUris({ data_uri: derivedB }, { convId: 'c1' })).envelope._missing_uris, [derivedB]);
  // Cleared: both go with their conversation.
  const c = await stored(cache, rows(50), 'c1', 'other.tool');
  const derivedC = await select(c);
  await cache.clearConversation('c1');
  assert.equal((await cache.lookup(derivedC, { convId: 'c1' })).status, 'miss');
  assert.deepEqual(await cache.entries({ convId: 'c1' }), []);
});

test('a derivation chain longer than 8 links reads as missing; cache_select refuses to make one', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1' });
  let uri = await stored(cache, rows(20));
  const chain = [];
  for (let k = 0; k < 8; k += 1) {
    uri = answer(await tools.callTool({ name: 'cache_select', arguments: { uri, limit: 20 - k } }))._cache_uri;
    chain.push(uri);
  }
  assert.equal((await cache.lookup(chain[7], { convId: 'c1' })).status, 'hit', '8 links');
  const ninth = await cache.cacheToolResult({ payload: rows(3), convId: 'c1', threshold: 0, derivedFrom: chain[7] });
  assert.equal((await cache.lookup(/** @type {string} */ (ninth), { convId: 'c1' })).status, 'miss', '9 links');
  // A selection of the last link would be such a reference: refused, never answered as if it resolved.
  const refused = refusal(await tools.callTool({ name: 'cache_select', arguments: { uri, limit: 5 } }));
  assert.match(String(refused.error), /a source derived 8 times over/);
});

test('the tools are scoped to their conversation; IndexedDB keeps derived entries across a reopen', async () => {
  const dbName = `readback-idb-${process.pid}`;
  const cache = new ResultCache({ dbName });
  const uri = await stored(cache, rows(30), 'c1');
  const other = cacheTools(cache, { convId: 'c2' });
  const miss = refusal(await other.callTool({ name: 'cache_read', arguments: { uri } }));
  assert.deepEqual(miss._missing_uris, [uri]);
  const derived = answer(await cacheTools(cache, { convId: 'c1' }).callTool({ name: 'cache_select', arguments: { uri, where: [{ field: 'host', op: '=', value: 'db-1' }] } }));
  assert.equal(derived.count, 10);
  assert.equal(/** @type {string[]} */ (refusal(await other.callTool({ name: 'cache_read', arguments: { uri: derived._cache_uri } }))._missing_uris)[0], derived._cache_uri);
  cache.close();
  const reopened = new ResultCache({ dbName });
  const again = await reopened.substituteCacheUris({ data_uri: derived._cache_uri }, { convId: 'c1' });
  assert.equal(/** @type {{ args: { data: unknown[] } }} */ (again).args.data.length, 10);
  // A pattern that names only the read-back tool (`*` matches `cache_select`, not
  // `metrics.query`) leaves it fresh: it is stale exactly when its source is.
  await reopened.invalidate(['*'], { cause: 'reset' });
  assert.equal((await reopened.lookup(derived._cache_uri, { convId: 'c1' })).status, 'hit');
  await reopened.invalidate(['metrics.*'], { cause: 'reset' });
  assert.equal((await reopened.lookup(derived._cache_uri, { convId: 'c1' })).status, 'stale');
  reopened.close();
});

test('hostile arguments are isError answers within maxChars, never throws or traps', async () => {
  const cache = fresh();
  const uri = await stored(cache, { rows: rows(100), meta: { a: 1 } });
  const tools = cacheTools(cache, { convId: 'c1', maxChars: 1000 });
  /** @type {unknown} */
  let deep = { field: 'cpu', op: '=', value: 1 };
  for (let k = 0; k < 10_000; k += 1) deep = { value: deep };
  const calls = [
    { name: 'cache_nope', arguments: { uri } },
    { name: 'cache_read' },
    { name: 'cache_read', arguments: 'uri' },
    { name: 'cache_read', arguments: { uri: 42 } },
    { name: 'cache_read', arguments: { uri: `mcp+cache://c1/${'x'.repeat(100_000)}` } },
    { name: 'cache_read', arguments: { uri: 'https://example.com/' } },
    { name: 'cache_read', arguments: { uri, offset: -1 } },
    { name: 'cache_read', arguments: { uri, offset: 1.5 } },
    { name: 'cache_read', arguments: { uri, limit: 0 } },
    { name: 'cache_read', arguments: { uri: `${uri}#/nope` } },
    { name: 'cache_read', arguments: { uri: `${uri}#/\uD800` } },
    { name: 'cache_read', arguments: { uri: 'mcp+cache://c1/AAAAAAAAAAAA' } },
    { name: 'cache_search', arguments: { uri } },
    { name: 'cache_search', arguments: { uri, query: 'q'.repeat(1000) } },
    { name: 'cache_select', arguments: { uri } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: { field: 'cpu' } } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [deep] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'cpu', op: '=', value: deep }] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: Array.from({ length: 1000 }, () => ({ field: 'cpu', op: '=', value: 1 })) } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'cpu', op: 'LIKE', value: 1 }] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'cpu', op: '=', value: 'v'.repeat(1_000_000) }] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'cpu', op: 'contains', value: true }] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: '[{"field":' } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: 'x'.repeat(1_000_000) } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, fields: [] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, fields: [{}] } },
    { name: 'cache_select', arguments: { uri: `${uri}#/rows`, limit: -3 } },
  ];
  for (const [k, call] of calls.entries()) {
    const result = await tools.callTool(call);
    const envelope = refusal(result);
    assert.ok(result.content[0].text.length <= 1000, `call ${k}: ${result.content[0].text.length}`);
    assert.match(envelope.error, /^invalid_args: /, `call ${k}`);
    assert.equal(typeof envelope.fix_hint, 'string');
  }
  const notRows = refusal(await tools.callTool({ name: 'cache_select', arguments: { uri } }));
  assert.match(notRows.fix_hint, /#\/rows/);
  assert.match(notRows.error, /holds an object$/);
  const scalars = await stored(cache, { s: 'text', n: null, k: 7 });
  for (const [pointer, held] of [['s', 'a string'], ['n', 'null'], ['k', 'a number']]) {
    assert.match(refusal(await tools.callTool({ name: 'cache_select', arguments: { uri: `${scalars}#/${pointer}` } })).error, new RegExp(`holds ${held}$`));
  }
  // Wrong types in rows never match, and never throw.
  const mixed = await stored(cache, [1, 'a', null, [2], { cpu: '95' }, { cpu: 95 }, { cpu: { n: 1 } }]);
  const only = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: mixed, where: [{ field: 'cpu', op: '>', value: 90 }] } }));
  assert.equal(only.count, 1);
  await assert.rejects(tools.callTool({ name: 'cache_read', arguments: { uri } }, undefined, { signal: AbortSignal.abort() }), { name: 'AbortError' });
});

test('cache_select projects a row\'s own "__proto__" key like any other field (JSON.parse makes one)', async () => {
  const cache = fresh();
  const payload = JSON.parse('{"rows":[{"id":1,"__proto__":{"admin":true}},{"id":2,"__proto__":"plain"}]}');
  const uri = await stored(cache, payload);
  const tools = cacheTools(cache, { convId: 'c1' });
  const selected = answer(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows`, fields: ['id', '__proto__'] } }));
  const expected = JSON.parse('[{"id":1,"__proto__":{"admin":true}},{"id":2,"__proto__":"plain"}]');
  assert.deepEqual(selected.sample, expected);
  const back = /** @type {Record<string, unknown>[]} */ (await cache.readCachedPayload(selected._cache_uri, { convId: 'c1' }));
  assert.deepEqual(back, expected);
  assert.equal(Object.getPrototypeOf(back[0]), Object.prototype, 'a column, not a prototype');
});
