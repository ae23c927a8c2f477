// The byte budgets the docs state are package.json's `sizeBudget` (the numbers
// scripts/size-budget.mjs enforces): docs/DEVELOP.md's sentence naming them and docs/SIZE.md's
// table of bytes per entry (and per module the host entry loads on first use), whose last
// column is the budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const read = (/** @type {string} */ file) => readFileSync(new URL(file, root), 'utf8');
const budget = JSON.parse(read('package.json')).sizeBudget;
/** Each budget, and how its row of docs/SIZE.md's table starts. */
const ROWS = { host: 'host entry ', server: 'server entry ', lists: 'lists entry ', readBack: 'read-back tools ', warmUp: 'warm-up ' };
const ENTRIES = Object.keys(ROWS);
/** A number as the docs write it: digits grouped by spaces (regular, thin or no-break). */
const number = (/** @type {string} */ text) => Number(text.replace(/[\s\u2009\u202f]/g, ''));

test('package.json names a budget for each entry', () => {
  assert.deepEqual(Object.keys(budget).sort(), [...ENTRIES].sort());
  for (const entry of ENTRIES) assert.ok(Number.isInteger(budget[entry]) && budget[entry] > 0, entry);
});

test("docs/DEVELOP.md states package.json's budgets", () => {
  const text = read('docs/DEVELOP.md').replace(/\s+/g, ' ');
  const stated = text.match(/fails above package\.json's `"sizeBudget"` \(([\d  ]+), ([\d  ]+) and ([\d  ]+) bytes; the modules loaded on first use ([\d  ]+) and ([\d  ]+)[;)]/);
  assert.ok(stated, 'docs/DEVELOP.md: the sentence stating the budgets ("fails above package.json\'s `"sizeBudget"` (…, … and … bytes; the modules loaded on first use … and …)")');
  assert.deepEqual(stated.slice(1).map(number), ENTRIES.map((e) => budget[e]), 'host, server, lists, read-back tools and warm-up, in that order');
});

test("docs/SIZE.md's table states package.json's budgets", () => {
  const rows = read('docs/SIZE.md').split('\n').filter((line) => line.startsWith('|'));
  for (const entry of ENTRIES) {
    const row = rows.find((line) => line.startsWith(`| ${ROWS[/** @type {keyof typeof ROWS} */ (entry)]}`));
    assert.ok(row, `docs/SIZE.md: a table row for the ${entry} entry`);
    const cells = row.split('|').map((cell) => cell.trim()).filter((cell) => cell !== '');
    assert.equal(number(cells.at(-1) ?? ''), budget[entry], `docs/SIZE.md: the ${entry} entry's budget (last column)`);
  }
});
