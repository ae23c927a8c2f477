// afterToolCall on CallToolResults, the edges of docs/CONTENT.md: every text shown together stays
// within maxChars (plus markers), text that does not fit is stored whatever its size,
// `enabled: false` stores nothing (media included), arrays' elements are not the data's copy,
// error results cut embedded text too, links and blocks of other kinds are shown whole or left
// out.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

let n = 0;
const newCache = () => new ResultCache({ dbName: `content-${process.pid}-${n++}` });
/**
 * A content block as the model is shown it: the fields these tests read, as they expect them.
 * @typedef {{ type: string, text: string, uri: string, resource: { text: string, blob?: string } }} ShownBlock
 */
/**
 * A CallToolResult as afterToolCall shows it.
 * @typedef {{ content: ShownBlock[], _meta?: Record<string, string[]> }} Shown
 */
const text = (/** @type {string} */ t) => ({ type: 'text', text: t });
/** Characters of text the model reads: text blocks, embedded text and blobs. */
const shown = (/** @type {Shown} */ r) => r.content.reduce((sum, b) => sum + (b.text?.length ?? 0) + (b.resource?.text?.length ?? 0) + (b.resource?.blob?.length ?? 0), 0);
const MARKERS = 600;

test('blocks spend one budget in order: kept resources, JSON copies and texts never exceed maxChars', async () => {
  const cache = newCache();
  const cases = [
    [{ type: 'resource', resource: { uri: 'file:///a', mimeType: 'application/octet-stream', blob: 'A'.repeat(15_000) } }, text('x'.repeat(10_000))],
    [{ type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'r'.repeat(15_000) } }, text('x'.repeat(10_000))],
    [text('y'.repeat(15_000)), text(JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ i, v: 'v'.repeat(10) })) }))],
  ];
  for (const content of cases) {
    const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content }, { convId: 'c' }));
    assert.ok(shown(r) <= 20_000 + MARKERS, `${shown(r)} shown`);
    assert.equal(r.content.length >= content.length, true, 'no block lost');
  }
  const small = { rows: Array.from({ length: 40 }, (_, i) => ({ i })) };
  const pretty = JSON.stringify(small, null, 2);
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [text(pretty), text('z'.repeat(7_000))], structuredContent: small }, { convId: 'c', maxChars: 4_000 }));
  assert.ok(shown(r) <= 4_000 + MARKERS, `${shown(r)} shown`);
});

test('a text over what is left is stored whatever its size, and the preview names it', async () => {
  const cache = newCache();
  const tail = 't'.repeat(3_000);
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [text('h'.repeat(19_000)), text(tail)] }, { convId: 'c' }));
  const [uri] = /** @type {Record<string, string[]>} */ (r._meta)['mcp-result-cache/uris'];
  assert.ok(r.content[1].text.includes(`"${uri}#/text"`), r.content[1].text.slice(-300));
  assert.equal(await cache.readCachedPayload(`${uri}#/text`, { convId: 'c' }), tail);
});

test('enabled: false stores nothing, media and blobs included', async () => {
  const cache = newCache();
  const image = { type: 'image', data: 'A'.repeat(4_000), mimeType: 'image/png' };
  const blob = { type: 'resource', resource: { uri: 'file:///r.pdf', mimeType: 'application/pdf', blob: 'B'.repeat(40_000) } };
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [image, blob] }, { convId: 'c', enabled: false, mediaMaxBytes: 100 }));
  assert.equal((await cache.stats()).entries, 0);
  assert.deepEqual(r.content[0], image, 'media the model sees pass as they are');
  assert.match(r.content[1].text, /too large to show, and not stored/);
  assert.equal(r._meta, undefined);
});

test('an array structuredContent: its elements\' text blocks are not its copy', async () => {
  const cache = newCache();
  const items = Array.from({ length: 12 }, (_, i) => ({ id: i, pad: 'p'.repeat(400) }));
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content: items.map((e) => text(JSON.stringify(e))), structuredContent: items }, { convId: 'c' }));
  assert.deepEqual(r.content.slice(0, 12).map((b) => JSON.parse(b.text).id), items.map((e) => e.id), 'each element shown once, in order');
  assert.equal(r.content[12].type, 'resource_link', 'the stored array is linked');
  assert.deepEqual(await cache.readCachedPayload(r.content[12].uri, { convId: 'c' }), items);
});

test('an error result cuts embedded text too, and is never stored', async () => {
  const cache = newCache();
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { isError: true, content: [{ type: 'resource', resource: { uri: 'file:///log', text: 'e'.repeat(100_000) } }] }, { convId: 'c' }));
  assert.ok(r.content[0].resource.text.length <= 20_000);
  assert.match(r.content[0].resource.text, /\[truncated: this result had 100000 characters/);
  assert.equal((await cache.stats()).entries, 0);
});

/**
 * A CallToolResult as afterToolCall shows it, with its structuredContent.
 * @typedef {Shown & { structuredContent?: unknown }} ShownData
 */

test('small data its copy cannot show whole is stored all the same: the summary names it', async () => {
  const cache = newCache();
  const data = { ok: true, total: 3, rows: [{ id: 1 }, { id: 2 }, { id: 3 }] };
  // The log spends maxChars first; the data's copy (57 characters) then gets a summary.
  const r = /** @type {ShownData} */ (await cache.afterToolCall('t', { content: [text('l'.repeat(37_500)), text(JSON.stringify(data))], structuredContent: data }, { convId: 'c' }));
  const summary = JSON.parse(r.content[1].text);
  assert.equal(typeof summary._cache_uri, 'string', r.content[1].text);
  assert.deepEqual(await cache.readCachedPayload(summary._cache_uri, { convId: 'c' }), data);
  assert.equal(r.structuredContent, undefined, 'the model was shown a summary: no structuredContent');
  // JSON text between maxChars and the threshold: stored, as plain text of that size is.
  const rows = { rows: Array.from({ length: 60 }, (_, i) => ({ i, v: 'vv' })) };
  const s = /** @type {ShownData} */ (await cache.afterToolCall('t', { content: [text(JSON.stringify(rows))] }, { convId: 'c', maxChars: 1_000 }));
  const visible = JSON.parse(s.content[0].text);
  assert.ok(JSON.stringify(rows).length > 1_000 && JSON.stringify(rows).length < 4_096);
  assert.deepEqual(await cache.readCachedPayload(visible._cache_uri, { convId: 'c' }), rows);
});

test('structuredContent is kept when the model was shown all of the data, whatever other text was cut', async () => {
  const cache = newCache();
  const log = text('l'.repeat(37_500));
  // Small data no text copies, next to a previewed log: the host still gets it.
  const small = { ok: true, total: 3 };
  const a = /** @type {ShownData} */ (await cache.afterToolCall('t', { content: [log], structuredContent: small }, { convId: 'c' }));
  assert.deepEqual(a.structuredContent, small);
  assert.match(a.content[0].text, /\[preview: /);
  // The data's copy shown whole first (stored or not), an unrelated log previewed after it.
  for (const rows of [1, 300]) {
    const data = { rows: Array.from({ length: rows }, (_, i) => ({ i, name: `row ${i}` })) };
    const r = /** @type {ShownData} */ (await cache.afterToolCall('t', { content: [text(JSON.stringify(data)), log], structuredContent: data }, { convId: 'c' }));
    assert.deepEqual(r.structuredContent, data, `${rows} rows`);
    assert.match(r.content[1].text, /\[preview: /);
  }
});

test('a member of small data previewed: the data is stored and named, and the host gets no structuredContent; nothing stored, none either', async () => {
  const file = 'line of file\n'.repeat(1_000);
  const result = () => ({ content: [text(file)], structuredContent: { path: '/a', content: file } });
  // Data under the threshold whose member the model cannot be shown whole: stored all the same.
  const cache = new ResultCache({ dbName: `content-${process.pid}-${n++}`, threshold: 1_000_000 });
  const r = /** @type {ShownData} */ (await cache.afterToolCall('fs.read', result(), { convId: 'c', maxChars: 1_000 }));
  assert.equal(r.structuredContent, undefined, 'the model was shown a preview of a member');
  assert.ok(shown(r) <= 1_000 + MARKERS);
  const reference = /** @type {string} */ (/\[preview: [^\]]*"(mcp\+cache:[^"]+)"/.exec(r.content[0].text)?.[1]);
  assert.equal(reference.split('#')[1], '/content', 'the preview names the member in the stored data');
  assert.equal(await cache.readCachedPayload(reference, { convId: 'c' }), file);
  // Nothing stored: the text cut, and no structuredContent to bring it back.
  const off = /** @type {ShownData} */ (await newCache().afterToolCall('fs.read', result(), { convId: 'c', maxChars: 1_000, enabled: false }));
  assert.equal(off.structuredContent, undefined);
  assert.match(off.content[0].text, /\[truncated: /);
  // A member shown whole keeps it.
  const whole = /** @type {ShownData} */ (await newCache().afterToolCall('fs.read', result(), { convId: 'c', enabled: false }));
  assert.deepEqual(whole.structuredContent, result().structuredContent);
});

test('a JSON text with an integer JSON.parse would round (a 64-bit id) is text: stored and read back exactly as sent', async () => {
  const cache = newCache();
  const rows = Array.from({ length: 60 }, (_, i) => `{"message_id":${1234567890123456789n + BigInt(i)},"body":"message ${i} ${'x'.repeat(300)}"}`);
  const sent = `{"messages":[${rows.join(',')}]}`;
  const r = /** @type {ShownData} */ (await cache.afterToolCall('t', { content: [text(sent)] }, { convId: 'c', maxChars: 2_000 }));
  assert.ok(!r.content[0].text.includes('1234567890123456800'), 'no rounded id is shown');
  assert.ok(r.content[0].text.startsWith(sent.slice(0, 1_000)), 'the preview is the text as sent');
  const [uri] = /** @type {Record<string, string[]>} */ (r._meta)['mcp-result-cache/uris'];
  assert.equal(await cache.readCachedPayload(`${uri}#/text`, { convId: 'c' }), sent);
  // Integers below 2^53 are data (2^53 itself is text: it is what 2^53 + 1 reads as).
  for (const id of ['1234567890', '9007199254740991']) {
    const data = `{"rows":[${Array.from({ length: 60 }, (_, i) => `{"id":${id},"i":${i},"pad":"${'p'.repeat(80)}"}`).join(',')}]}`;
    const d = /** @type {ShownData} */ (await cache.afterToolCall('t', { content: [text(data)] }, { convId: 'c' }));
    assert.equal(typeof JSON.parse(d.content[0].text)._cache_uri, 'string', id);
  }
});

test('a server\'s link or block of another kind is shown whole or left out: never past maxChars, read back exactly', async () => {
  const cache = newCache();
  const link = { type: 'resource_link', uri: 'file:///big', name: 'big', description: 'd'.repeat(100_000) };
  const widget = { type: 'widget', spec: 'w'.repeat(100_000) };
  const small = { type: 'resource_link', uri: 'file:///small', name: 'small' };
  /** Characters the model is shown: texts, and the JSON of every other block. */
  const all = (/** @type {Shown} */ r) => r.content.reduce((sum, b) => sum + (b.type === 'text' ? b.text.length : JSON.stringify(b).length), 0);
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [small, text('intro'), link, widget, text('after')] }, { convId: 'c' }));
  assert.ok(all(r) <= 20_000 + MARKERS, `${all(r)} shown`);
  assert.deepEqual(r.content.slice(0, 2), [small, text('intro')], 'what fits is shown as sent');
  const uri = /** @type {string} */ (/"(mcp\+cache:[^"#]+)#\/0"/.exec(r.content[2].text)?.[1]);
  assert.match(r.content[2].text, /^\[blocks not shown: 3,/);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c' }), [link, widget, text('after')], 'stored in order, as sent');
  // The only block left out stays left out (it cannot be cut), stored on its own array.
  const one = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [text('intro'), link] }, { convId: 'c' }));
  assert.equal(one.content.length, 2);
  const only = /** @type {string} */ (/"(mcp\+cache:[^"#]+)#\/0"/.exec(one.content[1].text)?.[1]);
  assert.deepEqual(await cache.readCachedPayload(`${only}#/0`, { convId: 'c' }), link);
  // Nothing stored: the line says so, and nothing past maxChars is shown either.
  const off = /** @type {Shown} */ (await newCache().afterToolCall('t', { content: [link] }, { convId: 'c', enabled: false }));
  assert.match(off.content[0].text, /too large to show, and not stored/);
});

test('a block of another kind with a short data string is measured whole; a member copy left out stores the data and withholds structuredContent; a long resource uri is no link name', async () => {
  const cache = newCache();
  const all = (/** @type {Shown} */ r) => r.content.reduce((sum, b) => sum + (b.type === 'text' ? b.text.length : JSON.stringify(b).length), 0);
  const widget = { type: 'widget', data: 'AAAA', spec: 'w'.repeat(100_000) };
  const r = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [text('intro'), widget] }, { convId: 'c' }));
  assert.ok(all(r) <= 20_000 + MARKERS, `${all(r)} shown`);
  const uri = /** @type {string} */ (/"(mcp\+cache:[^"#]+)#\/0"/.exec(r.content[1].text)?.[1]);
  assert.deepEqual(await cache.readCachedPayload(`${uri}#/0`, { convId: 'c' }), widget);
  // The file's text is left out after a link that did not fit: the host gets no structuredContent.
  const file = 'x'.repeat(3_000);
  const link = { type: 'resource_link', uri: 'file:///l', name: 'l', description: 'd'.repeat(2_500) };
  const d = /** @type {ShownData} */ (await cache.afterToolCall('fs.read', { content: [link, text(file)], structuredContent: { content: file } }, { convId: 'c', maxChars: 2_000 }));
  assert.equal(d.structuredContent, undefined);
  assert.equal(/** @type {Record<string, string[]>} */ (d._meta)['mcp-result-cache/uris'].length, 2, 'the data and the blocks left out');
  // A blob stored and linked: its link is named by its uri only when that is short.
  const blob = (/** @type {string} */ name) => ({ type: 'resource', resource: { uri: name, mimeType: 'application/pdf', blob: 'B'.repeat(40_000) } });
  const named = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [blob('file:///r.pdf'), blob(`data:,${'n'.repeat(100_000)}`)] }, { convId: 'c', maxChars: 2_000 }));
  const links = named.content.filter((b) => b.type === 'resource_link');
  assert.deepEqual(links.map((b) => /** @type {{ name: string }} */ (/** @type {unknown} */ (b)).name), ['file:///r.pdf', 't resource']);
});
