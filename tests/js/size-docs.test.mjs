// The byte budgets the docs state are package.json's `sizeBudget` (the numbers
// scripts/size-budget.mjs enforces): docs/DEVELOP.md's sentence naming them and docs/SIZE.md's
// table of bytes per entry, whose last column is the budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const read = (/** @type {string} */ file) => readFileSync(new URL(file, root), 'utf8');
const budget = JSON.parse(read('package.json')).sizeBudget;
const ENTRIES = ['host', 'server', 'lists'];
/** A number as the docs write it: digits grouped by spaces (regular, thin or no-break). */
const number = (/** @type {string} */ text) => Number(text.replace(/[\s\u2009\u202f]/g, ''));

test('package.json names a budget for each entry', () => {
  assert.deepEqual(Object.keys(budget).sort(), [...ENTRIES].sort());
  for (const entry of ENTRIES) assert.ok(Number.isInteger(budget[entry]) && budget[entry] > 0, entry);
});

test("docs/DEVELOP.md states package.json's budgets", () => {
  const text = read('docs/DEVELOP.md').replace(/\s+/g, ' ');
  const stated = text.match(/fails above package\.json's `"sizeBudget"` \(([\d  ]+), ([\d  ]+) and ([\d  ]+) bytes[;)]/);
  assert.ok(stated, 'docs/DEVELOP.md: the sentence stating the budgets ("fails above package.json\'s `"sizeBudget"` (…, … and … bytes)")');
  assert.deepEqual(stated.slice(1).map(number), ENTRIES.map((e) => budget[e]), 'host, server and lists, in that order');
});

test("docs/SIZE.md's table states package.json's budgets", () => {
  const rows = read('docs/SIZE.md').split('\n').filter((line) => line.startsWith('|'));
  for (const entry of ENTRIES) {
    const row = rows.find((line) => line.startsWith(`| ${entry} entry `));
    assert.ok(row, `docs/SIZE.md: a table row for the ${entry} entry`);
    const cells = row.split('|').map((cell) => cell.trim()).filter((cell) => cell !== '');
    assert.equal(number(cells.at(-1) ?? ''), budget[entry], `docs/SIZE.md: the ${entry} entry's budget (last column)`);
  }
});
