// Counts `any` in the tracked hand-written JavaScript and declarations (scripts/test.sh): in the
// JSDoc types of .js/.mjs/.cjs/.jsx files (`{any}`, `any[]`, `Record<…, any>`, inline casts) and
// in the code of .d.ts files (`: any`, `as any`, …), never in prose or string literals. Prints each
// occurrence; fails when there are more than MAX_ANY. Each one left must say in a comment why the
// value it types truly has no type.
//
//   node scripts/count-any.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const MAX_ANY = 10;


const ANY = /\bany\b/g;
// String literals inside a type (`'any'` is a value of the `flows` option, not a type).
const STRINGS = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;

/**
 * The line numbers (1-based) of each `any` in `text`'s types.
 * @param {string} file @param {string} text @returns {number[]}
 */
export function anyLines(file, text) {
  const lineOf = (/** @type {number} */ index) => text.slice(0, index).split('\n').length;
  /** @type {number[]} */
  const lines = [];
  /** @param {string} part @param {number} offset */
  const scan = (part, offset) => {
    const blanked = part.replace(STRINGS, (s) => ' '.repeat(s.length));
    for (const match of blanked.matchAll(ANY)) lines.push(lineOf(offset + (match.index ?? 0)));
  };
  if (file.endsWith('.d.ts')) {
    // The code of a declaration file: comments blanked out (their offsets kept).
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
    scan(code, 0);
    return lines;
  }
  // Every JSDoc type expression: `@tag {…}` with its braces balanced, across lines.
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const body = comment[0];
    for (const tag of body.matchAll(/@[a-zA-Z]+\s*\{/g)) {
      const start = (tag.index ?? 0) + tag[0].length - 1;
      let depth = 0;
      let end = start;
      for (; end < body.length; end++) {
        if (body[end] === '{') depth++;
        else if (body[end] === '}' && --depth === 0) break;
      }
      scan(body.slice(start, end + 1), (comment.index ?? 0) + start);
    }
  }
  return lines;
}

/** The tracked hand-written JavaScript and declaration files (build outputs are never tracked). */
function trackedFiles() {
  const out = execFileSync('git', ['ls-files', '-z', '--', '*.js', '*.mjs', '*.cjs', '*.jsx', '*.d.ts'], { encoding: 'utf8' });
  return out.split('\0').filter((f) => f !== '');
}

function main() {
  let counted = 0;
  for (const file of trackedFiles()) {
    const text = readFileSync(file, 'utf8');
    const source = text.split('\n');
    for (const line of anyLines(file, text)) {
      counted++;
      console.log(`${file}:${line}: ${source[line - 1].trim()}`);
    }
  }
  const verdict = counted <= MAX_ANY ? 'ok' : 'not ok';
  console.log(`${verdict} - ${counted} \`any\` in hand-written JS and .d.ts (at most ${MAX_ANY})`);
  if (counted > MAX_ANY) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
