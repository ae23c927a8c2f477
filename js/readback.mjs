// The read-back tools: what lets the model look inside a stored result and pass on just the part
// it needs. `cacheTools(cache, options)` is shaped like one more MCP server's client — `listTools()`
// and `callTool({ name, arguments })` answer what the SDK's `Client` answers — so a host lists these
// tools next to its servers' and routes calls by name. Pure JS over the cache's public methods
// (`substituteCacheUris`, `lookup`, `cacheToolResult`): payloads stay JS values, read by structured
// clone. The main entries load this module on first use (docs/READ-BACK.md).
import {
  CACHE_URI_SCHEME, DEFAULT_CONV_SEGMENT, DEFAULT_READ_TOOLS_PREFIX, DERIVED_FROM_SYMBOL, MAX_POINTER_BYTES, READ_TOOLS, childReference, hasCacheScheme,
  invalidArgs, isToolPrefix,
} from './protocol.mjs';
import { readable as readArgument } from './argument-reads.mjs';

const DEFAULT_MAX_CHARS = 4000;
const MIN_MAX_CHARS = 1000;
const MAX_MAX_CHARS = 100000;
// Longest reference accepted: scheme, a 64-character conversation, a 16-character token and a
// 2 048-byte pointer fit.
const MAX_URI_CHARS = 2200;
const DEFAULT_READ_LIMIT = 100;
const MAX_READ_LIMIT = 1000;
const DEFAULT_SEARCH_LIMIT = 20;
const MAX_SEARCH_LIMIT = 100;
const MAX_QUERY_CHARS = 200;
const SNIPPET_CONTEXT = 40;
const MAX_INLINE_VALUE_CHARS = 200;
const MAX_CONDITIONS = 32;
const MAX_FIELDS = 64;
const MAX_NAME_CHARS = 256;
const MAX_VALUE_CHARS = 1000;
const MAX_WHERE_TEXT = 20000;
const MAX_SELECT_LIMIT = 10_000_000;
const SELECT_MEMO_LIMIT = 256;
const OPS = ['=', '!=', '<', '<=', '>', '>=', 'contains'];

/**
 * A tool call's arguments, and any JSON value read from the cache.
 * @typedef {Record<string, unknown>} Args
 * @typedef {{ field: string, op: string, value: string | number | boolean | null }} Condition
 * @typedef {{ error: unknown, fix_hint: unknown }} Envelope
 * @typedef {{ _cache_uri: string, count: number, sample: unknown[] }} Selection
 * @typedef {{
 *   substituteCacheUris(args: object, options: object): Promise<{ ok: true, args: Args } | { ok: false, envelope: Envelope }>,
 *   lookup(uri: string, options: object): Promise<{ status: string }>,
 *   cacheToolResult(input: object): Promise<unknown>,
 * }} ReadCache
 * @typedef {{ cache: ReadCache, convId: string, maxChars: number, prefix: string, selections: Map<string, Selection> }} Context
 * @typedef {{
 *   schema: { description: string, properties: Record<string, object>, required?: string[] },
 *   check: (args: Args, uri: string, context: Context) => unknown,
 *   answer: (uri: string, value: unknown, args: Args, context: Context) => Promise<Record<string, unknown>>,
 * }} Tool
 */

/** A value as its JSON shows it: a stored `Date` is its ISO text (`null` when invalid), as in every answer. */
const plain = (/** @type {unknown} */ value) => (value instanceof Date ? value.toJSON() : typeof value == 'number' && !isFinite(value) ? null : value);
/** An object with members, as its JSON shows it (not an array, not a `Date`). @type {(value: unknown) => value is Record<string, unknown>} */
const isObject = (value) => typeOf(value) === 'object';
const typeOf = (/** @type {unknown} */ value) => ((value = plain(value)) === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** `s` cut to `n` characters with `…`, never inside a surrogate pair. @type {(s: unknown, n: number) => unknown} */
const cut = (s, n) => (String(s).length > n ? `${String(s).slice(0, n - 1).replace(/[\uD800-\uDBFF]$/, '')}…` : s);

/** A model-facing error: `{ error: "invalid_args: …", fix_hint }`, as the cache's envelopes. */
class ArgumentProblem extends Error {
  /** @param {string} error @param {string} fixHint */
  constructor(error, fixHint) {
    super(error);
    this.envelope = invalidArgs(error, fixHint);
  }
}
/** @type {(error: string, fixHint: string) => never} */
const problem = (error, fixHint) => {
  throw new ArgumentProblem(error, fixHint);
};

const jsonChars = (/** @type {unknown} */ value) => (JSON.stringify(value) ?? 'null').length;
/** Whether index `i` of `text` falls inside a surrogate pair (never at 0 or at the end). */
const inPair = (/** @type {string} */ text, /** @type {number} */ i) => /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(text.slice(i - 1, i + 1));

/**
 * `text` lower-cased one UTF-16 code unit for one, so an index in it is the same index in `text`:
 * "İ" (U+0130), the one character whose lower case is longer ("i̇", two units), is read as "i",
 * and a final sigma ("ς", which `toLowerCase` makes of "Σ" at a word's end) as "σ", so "Σ" folds
 * the same wherever it stands. Search and `contains` compare these.
 */
const folded = (/** @type {string} */ text) => text.replace(/\u0130/g, 'i').toLowerCase().replace(/ς/g, 'σ');

// ---- Argument readers: strict-mode models send `null` for every optional argument, so null is absent.

/** @returns {Args} */
function argsObject(/** @type {unknown} */ args) {
  if (args === undefined || args === null) return {};
  if (!isObject(args)) problem('the arguments must be an object', 'Call the tool with a JSON object of its parameters.');
  return args;
}

/** @type {() => never} */
const notAReference = () =>
  problem(`uri must be an ${CACHE_URI_SCHEME} reference`, 'Pass the _cache_uri of a stored result (optionally with a #/pointer) as uri.');

/**
 * What is wrong with `fragment` (after a reference's `#`) as a JSON Pointer, as
 * `core::pointer::JsonPointer::parse` and `core::uri::parse_cache_uri` read it; `null` when it is
 * one. The cache reads a reference with a malformed pointer as missing, whose hint is to re-call
 * the source tool: the read-back tools say what is wrong with the pointer instead, before any read.
 */
function pointerFault(/** @type {string} */ fragment) {
  if (fragment === '') return null;
  if (!fragment.startsWith('/')) return 'it must start with "/"';
  if (/~(?![01])/.test(fragment)) return '"~" must be followed by 0 or 1';
  if (/[\p{Cc}\p{Cs}]/u.test(fragment)) return 'it has a control character or a lone surrogate, which no reference carries';
  if (new TextEncoder().encode(fragment).length > MAX_POINTER_BYTES) return `it is over ${MAX_POINTER_BYTES} bytes`;
  return null;
}

/** @returns {string} */
function readUri(/** @type {Args} */ args) {
  const uri = args.uri;
  if (!hasCacheScheme(uri) || uri.length > MAX_URI_CHARS) notAReference();
  const hash = uri.indexOf('#');
  const fault = hash < 0 ? null : pointerFault(uri.slice(hash + 1));
  if (fault) {
    problem(`the #fragment of uri is not a JSON Pointer: ${fault}`,
      'Write the part after # as a JSON Pointer: "/" before each key or index (e.g. #/rows/3), "~" in a key as ~0 and "/" in a key as ~1; ' +
      'pass a pointer a read-back answer gave, or drop the #fragment to read the whole result.');
  }
  return uri;
}

/** @param {Args} args @param {string} key @param {number} fallback @param {number} max @returns {number} */
function readCount(args, key, fallback, max) {
  const value = args[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) problem(`${key} must be a non-negative integer`, `Pass ${key} as a whole number, or leave it out.`);
  return Math.min(value, max);
}

/** @param {Args} args @param {string} key @param {number} fallback @param {number} max */
function readPositive(args, key, fallback, max) {
  const count = readCount(args, key, fallback, max);
  if (count === 0) problem(`${key} must be at least 1`, `Pass ${key} as a whole number of at least 1, or leave it out.`);
  return count;
}

/** @param {unknown} value @param {string} what @returns {string} */
function readName(value, what) {
  if (typeof value !== 'string' || value === '' || value.length > MAX_NAME_CHARS) {
    problem(`${what} must be a non-empty string of at most ${MAX_NAME_CHARS} characters`, `Use a key of the rows, as ${DEFAULT_READ_TOOLS_PREFIX}${READ_TOOLS[0]} shows them.`);
  }
  return value;
}

const CONDITION_HINT = 'Pass where as a list of {"field": <row key>, "op": one of = != < <= > >= contains, "value": <string, number, boolean or null>}; every condition must hold.';

/** @returns {Condition[]} */
function readWhere(/** @type {Args} */ args) {
  let where = args.where;
  if (where === undefined || where === null) return [];
  // Small models often send the list as JSON text.
  if (typeof where === 'string' && where.length <= MAX_WHERE_TEXT) {
    try {
      where = JSON.parse(where);
    } catch {
      problem('where is not valid JSON', CONDITION_HINT);
    }
  }
  if (!Array.isArray(where)) problem('where must be a list of conditions', CONDITION_HINT);
  if (where.length > MAX_CONDITIONS) problem(`where has more than ${MAX_CONDITIONS} conditions`, CONDITION_HINT);
  return where.map((/** @type {unknown} */ condition) => {
    if (!isObject(condition)) problem('every condition must be an object', CONDITION_HINT);
    const field = readName(condition.field, 'field');
    const { op, value } = condition;
    if (typeof op !== 'string' || !OPS.includes(op)) problem('op must be one of = != < <= > >= contains', CONDITION_HINT);
    const primitive = value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ||
      (typeof value === 'string' && value.length <= MAX_VALUE_CHARS);
    if (!primitive) problem(`value must be a string (at most ${MAX_VALUE_CHARS} characters), a finite number, a boolean or null`, CONDITION_HINT);
    if (op === 'contains' && (value === null || typeof value === 'boolean')) problem('contains needs a string or number value', CONDITION_HINT);
    return { field, op, value };
  });
}

/** @returns {string[] | null} */
function readFields(/** @type {Args} */ args) {
  const fields = args.fields;
  if (fields === undefined || fields === null) return null;
  if (!Array.isArray(fields) || fields.length === 0 || fields.length > MAX_FIELDS) {
    problem(`fields must be a list of 1 to ${MAX_FIELDS} row keys`, 'Pass fields as the row keys to keep, or leave it out to keep whole rows.');
  }
  return fields.map((f) => readName(f, 'every field'));
}

// ---- cache_read -----------------------------------------------------------------------------

/**
 * The refusal of a read whose answer cannot fit in `maxChars`: every answer echoes `uri`, and a
 * #pointer near its 2 048-byte limit leaves no room for what it points at.
 * @type {(uri: string, maxChars: number) => never}
 */
const noRoom = (uri, maxChars) =>
  problem(`uri is too long (${uri.length} characters) for an answer within maxChars (${maxChars})`,
    'Read or search the part above it: drop the last /key of the #pointer.');

/**
 * `answer` if it fits in `maxChars`. A `too_large` reference that does not fit is given as
 * `null`, so paging still moves on; an answer that still does not fit is refused (noRoom).
 * @param {Args} answer @param {string} uri @param {number} maxChars
 */
function fitted(answer, uri, maxChars) {
  if (jsonChars(answer) > maxChars && isObject(answer.too_large)) answer.too_large.uri = null;
  if (jsonChars(answer) > maxChars) noRoom(uri, maxChars);
  return answer;
}

/**
 * A page of whole entries from `offset`, as many as fit in `maxChars` (and `limit`), listed under
 * `list` in `answer` (`{ uri, total…, offset }`); `at(i)` is the `i`-th entry and its reference.
 * One entry alone larger than an answer may be is named by `too_large`, so it can be read by its
 * reference.
 * @param {Args} answer @param {string} list @param {number} total
 * @param {(i: number) => [unknown, string | null]} at @param {number} limit @param {number} maxChars
 */
function page(answer, list, total, at, limit, maxChars) {
  const uri = /** @type {string} */ (answer.uri);
  const room = maxChars - jsonChars({ ...answer, [list]: [], next_offset: total });
  /** @type {unknown[]} */
  const entries = (answer[list] = []);
  let used = 0;
  let end = /** @type {number} */ (answer.offset);
  while (end < total && entries.length < limit) {
    const [entry, pointer] = at(end);
    const chars = jsonChars(entry) + (entries.length ? 1 : 0);
    if (used + chars > room) {
      if (!entries.length) answer.too_large = { index: end++, uri: pointer, chars };
      break;
    }
    used += chars;
    entries.push(entry);
    end += 1;
  }
  if (end < total) answer.next_offset = end;
  return fitted(answer, uri, maxChars);
}

/** Characters from `offset`, as many as fit once JSON-escaped; never half a surrogate pair. */
/** @param {string} uri @param {string} text @param {number} offset @param {number} limit @param {number} maxChars */
function readString(uri, text, offset, limit, maxChars) {
  const total = text.length;
  // An offset inside a pair (no next_offset is) starts the page at the pair.
  offset -= +inPair(text, offset);
  const room = maxChars - jsonChars({ uri, total_chars: total, offset, text: '', next_offset: total });
  // `end` would split a surrogate pair: a page ends before the pair or after it, never inside.
  const splits = (/** @type {number} */ end) => end > offset && inPair(text, end);
  let end = Math.min(total, offset + limit, offset + Math.max(0, room));
  // The page's first character is a pair: it counts as one character against `limit`.
  if (end === offset + 1 && splits(end)) end += 1;
  for (;;) {
    if (splits(end)) end -= 1;
    const over = jsonChars(text.slice(offset, end)) - 2 - room;
    if (over <= 0 || end <= offset) break;
    end = Math.max(offset, end - Math.max(1, Math.ceil(over / 6)));
  }
  // Not one character fits beside the uri: refused, never a page that does not move on.
  if (end === offset && offset < total) noRoom(uri, maxChars);
  /** @type {Args} */
  const answer = { uri, total_chars: total, offset, text: text.slice(offset, end) };
  if (end < total) answer.next_offset = end;
  return fitted(answer, uri, maxChars);
}

/** @param {string} uri @param {unknown} value @param {Args} args @param {number} maxChars */
function readAnswer(uri, value, args, maxChars) {
  value = plain(value);
  const offset = readCount(args, 'offset', 0, Number.MAX_SAFE_INTEGER);
  // A string page holds as many characters as fit, or `limit`; other pages `limit` items or keys.
  const limit = typeof value === 'string'
    ? readPositive(args, 'limit', Infinity, Number.MAX_SAFE_INTEGER)
    : readPositive(args, 'limit', DEFAULT_READ_LIMIT, MAX_READ_LIMIT);
  // An object's members by name; an array's items and a string's characters by index.
  const names = isObject(value) ? Object.keys(value).filter((key) => value[key] !== undefined) : value;
  const size = Array.isArray(names) || typeof names === 'string' ? names.length : 0;
  if (offset > size) problem(`offset ${offset} is past the end (${size})`, 'Start again from offset 0, or use the next_offset of the previous answer.');
  if (Array.isArray(value)) {
    return page({ uri, total: size, offset }, 'items', size, (i) => [plain(value[i]) ?? null, childReference(uri, i)], limit, maxChars);
  }
  if (typeof value === 'string') return readString(uri, value, offset, limit, maxChars);
  if (isObject(value)) {
    // An object's members: key, type, JSON size and a reference to each; small values shown in
    // place (reading a row answers its values, not just their names).
    return page({ uri, total_keys: size, offset }, 'keys', size, (i) => {
      const key = /** @type {string[]} */ (names)[i];
      const member = plain(value[key]);
      const chars = jsonChars(member);
      const pointer = childReference(uri, key);
      /** @type {Args} */
      const entry = { key, type: typeOf(member), size: chars, pointer };
      if ((member === null || typeof member !== 'object') && chars <= MAX_INLINE_VALUE_CHARS) entry.value = member;
      return [entry, pointer];
    }, limit, maxChars);
  }
  return fitted({ uri, type: typeOf(value), value }, uri, maxChars);
}

// ---- cache_search ---------------------------------------------------------------------------

/** The match at `at` in `text` with some context either side; never half a surrogate pair. */
/** @param {string} text @param {number} at @param {number} length */
function snippetOf(text, at, length) {
  let start = Math.max(0, at - SNIPPET_CONTEXT);
  let end = Math.min(text.length, at + length + SNIPPET_CONTEXT);
  if (inPair(text, start)) start += 1;
  if (inPair(text, end)) end -= 1;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/**
 * The JSON Pointer, from the entry's root, of the value `path` leads to from `uri`: the fragment of
 * the reference `childReference` writes for it, token by token (what the listing's `pointer` is), or
 * `null` when no reference can carry it.
 * @param {string} uri @param {(string | number)[]} path @returns {string | null}
 */
function pointerOf(uri, path) {
  /** @type {string | null} */
  let reference = uri;
  for (const token of path) {
    reference = childReference(reference, token);
    if (reference === null) return null;
  }
  const hash = reference.indexOf('#');
  return hash < 0 ? '' : reference.slice(hash + 1);
}

/** Every string and number leaf containing `query` (case-insensitive), in document order. */
/** @param {string} uri @param {unknown} value @param {Args} args @param {number} maxChars */
function searchAnswer(uri, value, args, maxChars) {
  const query = args.query;
  if (typeof query !== 'string' || query === '' || query.length > MAX_QUERY_CHARS) {
    problem(`query must be a non-empty string of at most ${MAX_QUERY_CHARS} characters`, 'Pass the text or number to look for as query.');
  }
  const limit = readPositive(args, 'limit', DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const needle = folded(query);
  const room = maxChars - jsonChars({ uri, query, total_matches: Number.MAX_SAFE_INTEGER, matches: [] });
  /** @type {{ pointer: string | null, snippet: string }[]} */
  const matches = [];
  let total = 0;
  let used = 0;
  let full = false;
  /** @type {string[]} */
  const path = [];
  const visit = (/** @type {unknown} */ node) => {
    node = plain(node);
    if (typeof node === 'string' || typeof node === 'number') {
      const text = String(node);
      const at = folded(text).indexOf(needle);
      if (at < 0) return;
      total += 1;
      if (full) return;
      const match = { pointer: pointerOf(uri, path), snippet: snippetOf(text, at, query.length) };
      // A pointer too long for any answer is given as null, as one no reference can carry; a
      // match that even so cannot be listed (its snippet full of escapes) is only counted.
      if (jsonChars(match.pointer) > room) match.pointer = null;
      const chars = jsonChars(match) + (matches.length ? 1 : 0);
      if (chars > room) return;
      if (matches.length >= limit || used + chars > room) {
        full = true;
        return;
      }
      used += chars;
      matches.push(match);
    } else if (node && typeof node == 'object') {
      // An array's items and an object's members, in order (an index as its key: the same pointer).
      for (const key of Object.keys(node)) {
        path.push(key);
        visit(/** @type {Record<string, unknown>} */ (node)[key]);
        path.pop();
      }
    }
  };
  visit(value);
  return fitted({ uri, query, total_matches: total, matches }, uri, maxChars);
}

// ---- cache_select ---------------------------------------------------------------------------

/** @param {unknown} actual @param {string} op @param {unknown} expected @returns {boolean} */
function holds(actual, op, expected) {
  switch (op) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case 'contains':
      if (Array.isArray(actual)) return actual.map(plain).includes(expected);
      return (typeof actual === 'string' || typeof actual === 'number') &&
        folded(String(actual)).includes(folded(String(expected)));
    default: {
      // Order compares numbers with numbers and strings with strings (ISO times sort as text).
      const comparable = (typeof actual === 'number' && typeof expected === 'number') ||
        (typeof actual === 'string' && typeof expected === 'string');
      if (!comparable) return false;
      if (op === '<') return actual < expected;
      if (op === '<=') return actual <= expected;
      if (op === '>') return actual > expected;
      return actual >= expected;
    }
  }
}

const own = (/** @type {Record<string, unknown>} */ row, /** @type {string} */ key) => (Object.hasOwn(row, key) ? row[key] : undefined);

/** The rows of `value` meeting every condition, projected to `fields`, at most `limit`. */
/** @param {unknown[]} value @param {Condition[]} where @param {string[] | null} fields @param {number} limit */
function selectRows(value, where, fields, limit) {
  const rows = [];
  for (const row of value) {
    if (rows.length >= limit) break;
    if (!isObject(row) || !where.every((c) => holds(plain(own(row, c.field)), c.op, c.value))) continue;
    if (!fields) {
      rows.push(row);
      continue;
    }
    // By definition (fromEntries): a row's own `__proto__` key (JSON.parse makes one) is a column like any other.
    rows.push(Object.fromEntries(fields.filter((field) => Object.hasOwn(row, field)).map((field) => [field, row[field]])));
  }
  return rows;
}

/** @param {string} uri @param {unknown} value @returns {never} */
function notRows(uri, value) {
  const arrays = isObject(value) ? Object.keys(value).filter((k) => Array.isArray(value[k])).slice(0, 8) : [];
  const hint = arrays.length
    ? `Point uri at its rows, e.g. ${arrays.map((k) => childReference(uri, k)).filter(Boolean).join(' or ')}.`
    : `Use ${DEFAULT_READ_TOOLS_PREFIX}${READ_TOOLS[0]} to see what it holds.`;
  const type = typeOf(value);
  const held = /** @type {Record<string, string>} */ ({ array: 'an array of other values', object: 'an object', null: type })[type] ?? `a ${type}`;
  problem(`${DEFAULT_READ_TOOLS_PREFIX}${READ_TOOLS[2]} needs an array of rows (objects); ${uri} holds ${held}`, hint);
}

// ---------------------------------------------------------------------------------------------

/**
 * The read-back tools, one row each: the \`schema\` listed (description, properties, required
 * besides \`uri\`), the \`check\` of its arguments made before any read (a bad call costs no read),
 * and the \`answer\` over the value behind \`uri\`. Their names are READ_TOOLS (core/view.rs), in
 * that order, after the prefix.
 */
/**
 * The rows `args` select from `value`, stored as a new entry derived from `uri`: `{ _cache_uri,
 * count, sample }` (the same selection of the same source answers the same while it resolves).
 */
/** @param {string} uri @param {unknown} value @param {Args} args @param {Context} context */
async function selectAnswer(uri, value, args, { cache, convId, maxChars, prefix, selections }) {
  // As the check parsed them.
  const where = /** @type {Condition[]} */ (args.where);
  const fields = /** @type {string[] | null} */ (args.fields);
  const limit = readPositive(args, 'limit', MAX_SELECT_LIMIT, MAX_SELECT_LIMIT);
  // An array with items but no row (strings, numbers): refused; items that are not rows never match.
  if (!Array.isArray(value) || value.length && !value.some(isObject)) notRows(uri, value);
  const key = JSON.stringify([convId, uri, where, fields, limit]);
  /** Whether `reference` resolves now. @param {string} reference */
  const live = async (reference) => (await cache.lookup(reference, { convId })).status === 'hit';
  const known = selections.get(key);
  if (known) {
    if (await live(known._cache_uri)) return known;
    selections.delete(key);
  }
  const rows = selectRows(value, where, fields, limit);
  const derived = await cache.cacheToolResult({ payload: rows, convId, sourceToolName: `${prefix}select`, threshold: 0, derivedFrom: uri });
  // Not stored, or stored where it would read as missing: a source at the end of the longest
  // chain a reference follows (8 links), or evicted by this write (a full cache).
  if (typeof derived !== 'string' || !(await live(derived))) {
    problem(`the ${rows.length} selected rows could not be stored to resolve (too large, no storage left, or a source derived 8 times over)`,
      'Select fewer rows or fields (limit, fields), or from the original result.');
  }
  const room = Math.floor(maxChars / 2);
  const sample = [];
  let used = 0;
  for (const row of rows) {
    used += jsonChars(row) + 1;
    if (used > room || sample.length >= 5) break;
    sample.push(row);
  }
  const result = { _cache_uri: derived, count: rows.length, sample };
  if (selections.size >= SELECT_MEMO_LIMIT) selections.delete(selections.keys().next().value ?? '');
  selections.set(key, result);
  return result;
}

/** @type {Record<string, Tool>} */
const TOOLS = {
  read: {
    schema: {
      description:
        `Read part of a stored tool result by its ${CACHE_URI_SCHEME} reference (a _cache_uri), without ` +
        'copying it into the conversation. The uri may end in a JSON Pointer (#/rows, #/rows/3/cpu) ' +
        'to read one part. An array answers {uri, total, offset, items, next_offset?} (whole items; ' +
        'call again with offset=next_offset for more); a string answers {uri, total_chars, offset, ' +
        'text, next_offset?}; an object answers {uri, total_keys, offset, keys: [{key, type, size, pointer, value?}], next_offset?} ' +
        '(small values shown in place; pass a pointer as uri to read a member).',
      properties: {
        uri: { type: 'string', description: `The reference, e.g. "${CACHE_URI_SCHEME}conv/AbCd1234#/rows".` },
        offset: { type: 'integer', minimum: 0, description: 'First item (array), character (string) or key (object). Default 0.' },
        limit: { type: 'integer', minimum: 1, description: 'Most items, characters or keys to return. Default: as many as fit.' },
      },
    },
    check: (args) => {
      readCount(args, 'offset', 0, Number.MAX_SAFE_INTEGER);
      readPositive(args, 'limit', 1, Number.MAX_SAFE_INTEGER);
    },
    answer: async (uri, value, args, context) => readAnswer(uri, value, args, context.maxChars),
  },
  search: {
    schema: {
      description:
        'Find where a text or number occurs in a stored tool result (case-insensitive substring over ' +
        'its string and number values). Answers {uri, query, total_matches, matches: [{pointer, ' +
        `snippet}]} in document order; append a pointer to the reference (${CACHE_URI_SCHEME}conv/token#` +
        '<pointer>) to read that value or its row with the read tool.',
      properties: {
        uri: { type: 'string', description: 'The reference to search, optionally with a #/pointer.' },
        query: { type: 'string', description: 'The text or number to look for.' },
        limit: { type: 'integer', minimum: 1, description: 'Most matches to list. Default 20.' },
      },
      required: ['query'],
    },
    check: (args, uri, context) => searchAnswer(uri, null, args, context.maxChars),
    answer: async (uri, value, args, context) => searchAnswer(uri, value, args, context.maxChars),
  },
  select: {
    schema: {
      description:
        'Filter the rows of a stored tool result into a new stored result, without copying them: ' +
        'answers {_cache_uri, count, sample}. Pass that _cache_uri on to another tool (e.g. as its ' +
        'data_uri argument) exactly like the original reference. The uri must point at an array of ' +
        `objects (e.g. "${CACHE_URI_SCHEME}conv/token#/rows"). The new reference stops resolving when its ` +
        'source goes stale or is removed.',
      properties: {
        uri: { type: 'string', description: 'The reference of the rows, optionally with a #/pointer.' },
        where: {
          type: 'array',
          description: 'Conditions that must all hold. Omit to keep every row.',
          maxItems: MAX_CONDITIONS,
          items: {
            type: 'object',
            properties: {
              field: { type: 'string', description: 'A key of the rows.' },
              op: { type: 'string', enum: OPS },
              value: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
            },
            required: ['field', 'op', 'value'],
            additionalProperties: false,
          },
        },
        fields: { type: 'array', items: { type: 'string' }, description: 'Row keys to keep. Omit to keep whole rows.' },
        limit: { type: 'integer', minimum: 1, description: 'Most rows to keep (the first ones, in order).' },
      },
    },
    check: (args) => {
      args.where = readWhere(args);
      args.fields = readFields(args);
      readPositive(args, 'limit', 1, MAX_SELECT_LIMIT);
    },
    answer: selectAnswer,
  },
};

/** @returns {import('./index.js').CacheReadTool[]} */
function toolList(/** @type {string} */ prefix) {
  return READ_TOOLS.map((kind) => {
    const { description, properties, required = [] } = TOOLS[kind].schema;
    return {
      name: `${prefix}${kind}`,
      description,
      inputSchema: { type: 'object', properties, required: ['uri', ...required], additionalProperties: false },
      annotations: { readOnlyHint: kind !== 'select', openWorldHint: false },
    };
  });
}

/** The `convId` option, as the cache takes it. */
function readConvId(/** @type {unknown} */ convId) {
  if (convId === undefined || convId === null) return DEFAULT_CONV_SEGMENT;
  if (typeof convId === 'string' || typeof convId === 'number' || typeof convId === 'bigint') return String(convId);
  throw new TypeError('cacheTools: convId must be a string or number, or a function returning one');
}

/** @type {(cache: unknown) => cache is ReadCache} */
const isReadCache = (cache) => isObject(cache) && typeof cache.substituteCacheUris === 'function' && typeof cache.cacheToolResult === 'function';

/**
 * `read()`, or the TypeError naming `what` ("`convId`", "the options", …) when it throws anything
 * but an argument problem (a getter, a Proxy's trap, a revoked Proxy): never the caller's own error.
 * @template T @param {() => T} read @param {string} what @returns {T}
 */
const readable = (read, what) => readArgument('cacheTools', read, what, (error) => error instanceof ArgumentProblem);

/**
 * The read-back tools over `cache` for one conversation: `{ listTools(), callTool({ name,
 * arguments }) }`, answering like an MCP client. Throws a TypeError for bad options.
 * @param {unknown} cache
 * @param {unknown} [options]
 */
export function cacheTools(cache, options = {}) {
  if (!readable(() => isReadCache(cache), 'the cache')) {
    throw new TypeError('cacheTools: the first argument must be a ResultCache');
  }
  const store = /** @type {ReadCache} */ (cache);
  if (!readable(() => isObject(options), 'the options')) throw new TypeError('cacheTools: options must be an object');
  const given = /** @type {Record<string, unknown>} */ (options);
  const option = (/** @type {string} */ key) => readable(() => given[key], `\`${key}\``);
  // A function is asked at every call (a host switching conversations keeps one tool set).
  // (A method call: the function is read at each call, with `options` as its `this`.)
  const convId = option('convId');
  const conversation = typeof convId === 'function'
    ? () => readConvId(readable(() => Reflect.apply(/** @type {() => unknown} */ (option('convId')), given, []), '`convId`'))
    : ((id) => () => id)(readConvId(convId));
  const prefix = option('prefix') ?? DEFAULT_READ_TOOLS_PREFIX;
  if (!isToolPrefix(prefix)) throw new TypeError('cacheTools: prefix must be at most 32 of A-Z a-z 0-9 _ - .');
  const maxChars = option('maxChars') ?? DEFAULT_MAX_CHARS;
  if (typeof maxChars !== 'number' || !Number.isInteger(maxChars) || maxChars < MIN_MAX_CHARS || maxChars > MAX_MAX_CHARS) {
    throw new TypeError(`cacheTools: maxChars must be an integer from ${MIN_MAX_CHARS} to ${MAX_MAX_CHARS}`);
  }
  const names = new Map(READ_TOOLS.map((kind) => [`${prefix}${kind}`, TOOLS[kind]]));
  // The same selection of the same source answers the same reference (and text), while it lasts.
  /** @type {Map<string, Selection>} */
  const selections = new Map();

  /**
   * An answer read from the entry `uri` names: it carries that reference under the symbol
   * `Symbol.for(DERIVED_FROM_SYMBOL)`, so what a pipeline (`afterToolCall`, `wrapMcpClient`,
   * the AI SDK wrappers) stores of it is derived from that entry: its server, its staleness.
   * @type {(value: Record<string, unknown>, uri: string) => import('./index.js').CacheReadToolResult}
   */
  const answer = (value, uri, text = JSON.stringify(value)) => Object.defineProperty(
    // `structuredContent` is the very object its text shows (a Date there is its ISO string).
    { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) },
    Symbol.for(DERIVED_FROM_SYMBOL),
    { value: uri },
  );
  /** @type {(envelope: Envelope) => import('./index.js').CacheReadToolResult} */
  const refuse = (envelope) => {
    let text = JSON.stringify(envelope);
    // Cut (measured as JSON text) until it fits; the other fields (`_missing_uris`, …) go after
    // two tries.
    for (let n = maxChars; text.length > maxChars; n >>= 1) {
      text = JSON.stringify({ ...(n * 4 > maxChars && envelope), error: cut(envelope.error, n / 2), fix_hint: cut(envelope.fix_hint, n / 4) });
    }
    return { isError: true, content: [{ type: 'text', text }] };
  };

  /** The value behind `uri` in this conversation, or the cache's envelope (missing, stale). @param {string} uri @param {string} convId @returns {Promise<{ envelope: { error: unknown, fix_hint: unknown } } | { envelope?: undefined, value: unknown }>} */
  async function resolve(uri, convId) {
    const outcome = await store.substituteCacheUris({ data_uri: uri }, { convId });
    if (!outcome.ok) return { envelope: outcome.envelope };
    if (!Object.hasOwn(outcome.args, 'data')) notAReference();
    return { value: outcome.args.data };
  }

  return {
    listTools: async () => ({ tools: toolList(prefix) }),
    async callTool(/** @type {unknown} */ params, /** @type {unknown} */ _resultSchema, /** @type {{ signal?: AbortSignal } | undefined} */ requestOptions) {
      requestOptions?.signal?.throwIfAborted();
      const call = readable(() => isObject(params), 'the call') ? /** @type {Record<string, unknown>} */ (params) : undefined;
      const name = call && readable(() => call.name, '`name`');
      const tool = typeof name === 'string' ? names.get(name) : undefined;
      if (!call || !tool) {
        const shown = readable(() => String(name), '`name`');
        return refuse(invalidArgs(`unknown tool ${cut(JSON.stringify(shown), 80)}`, `Use one of ${[...names.keys()].join(', ')}.`));
      }
      try {
        const context = { cache: store, convId: '', maxChars, prefix, selections };
        // The checks read nothing but the arguments: what else they throw is an unreadable one.
        // They are read once, here: the answer reads this copy, and the select's conditions
        // and fields as its check parsed them.
        const { args, uri } = readable(() => {
          const given = argsObject(call.arguments);
          const args = Object.fromEntries(Object.keys(tool.schema.properties).map((key) => [key, given[key]]));
          const uri = readUri(args);
          tool.check(args, uri, context);
          return { args, uri };
        }, '`arguments`');
        context.convId = conversation();
        const found = await resolve(uri, context.convId);
        if (found.envelope) return refuse(found.envelope);
        return answer(await tool.answer(uri, found.value, args, context), uri);
      } catch (error) {
        if (error instanceof ArgumentProblem) return refuse(error.envelope);
        throw error;
      }
    },
  };
}
