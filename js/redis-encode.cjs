'use strict';
// How `redisStorage` (js/redis.cjs) encodes a payload: as JSON, only when parsing it gives back
// the very same value (docs/REDIS.md, *How payloads are encoded*).

/** @param {string} message */
const typeError = (message) => new TypeError(`redisStorage: ${message}`);

/** A value JSON keeps as it is: a string, a boolean, null, or a finite number other than -0. @param {unknown} v */
const plain = (v) =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0));

/** Why JSON cannot hold the object `item` exactly, or `null` when it can (its members aside). @param {object} item */
function objectProblem(item) {
  if (Array.isArray(item)) {
    for (let i = 0; i < item.length; i += 1) if (!(i in item)) return 'a sparse array';
    if (Object.keys(item).length !== item.length) return 'an array with extra properties';
  } else {
    const proto = Object.getPrototypeOf(item);
    if (proto !== Object.prototype && proto !== null) {
      const ctor = typeof proto === 'object' ? Reflect.get(proto, 'constructor') : undefined;
      return `a ${typeof ctor === 'function' && ctor.name ? ctor.name : 'non-plain'} object`;
    }
    if (typeof Reflect.get(item, 'toJSON') === 'function') return 'an object with a toJSON method';
  }
  if (Object.getOwnPropertySymbols(item).length > 0) return 'an object with a symbol key';
  return null;
}

/** What JSON would do to the primitive `v`. @param {unknown} v */
const primitiveProblem = (v) => (typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`);

/**
 * The JSON of `value`, when parsing it gives back the same value: plain objects and dense arrays,
 * strings (lone surrogates included: JSON.stringify escapes them), booleans, null and finite
 * numbers other than -0. Anything else (undefined, a function, a Date, a Map, a typed array, a
 * sparse array, a symbol key, a cycle, a BigInt, …) is a TypeError naming where it is: JSON would
 * silently change or drop it. One walk without paths; the paths only for the message. `json`,
 * when given, is `JSON.stringify(value)` made by the cache a moment before (nothing ran since).
 * @param {unknown} value @param {unknown} [json] @returns {string}
 */
function encodePayload(value, json) {
  const seen = new Set();
  /** @type {unknown[]} */
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) {
      if (!plain(item)) throw refusal(value);
      continue;
    }
    // A value reached twice is checked once (and a cycle ends here: JSON.stringify reports it).
    if (seen.has(item)) continue;
    seen.add(item);
    if (objectProblem(item) !== null) throw refusal(value);
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i -= 1) stack.push(item[i]);
    } else {
      for (const key in item) if (Object.hasOwn(item, key)) stack.push(Reflect.get(item, key));
    }
  }
  if (typeof json === 'string') return json;
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw typeError(`the payload cannot be stored as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The TypeError for a value `encodePayload` refused: walks again, with paths, to say where. @param {unknown} value */
function refusal(value) {
  const open = new Set();
  /** @type {(item: unknown, path: string) => string | null} */
  const walk = (item, path) => {
    if (typeof item !== 'object' || item === null) return plain(item) ? null : `${path || 'the value'} is ${primitiveProblem(item)}`;
    if (open.has(item)) return `${path || 'the value'} is a cycle`;
    const problem = objectProblem(item);
    if (problem !== null) return `${path || 'the value'} is ${problem}`;
    open.add(item);
    for (const key of Object.keys(item)) {
      const found = walk(Reflect.get(item, key), `${path}/${key}`);
      if (found !== null) return found;
    }
    open.delete(item);
    return null;
  };
  return typeError(`the payload cannot be stored exactly as JSON: ${walk(value, '') ?? 'it changes on the way'}`);
}

module.exports = { encodePayload, typeError };
