// The JSON types a JSON Schema admits, read in one place for both of its readers: `augmentTools`
// (js/src/augment.mjs, bundled: which properties take an array or an object, read through its
// catching readers) and the tool pipeline (js/tool-pipeline.mjs: whether a resolved reference
// fits the parameter it stands for).

/**
 * How a schema's keywords are read: `get(schema, key)` one keyword's value, `list(value, what)`
 * the items of a list (`null` for anything else; `what` names it in a reader's errors).
 * @typedef {{ get(schema: object, key: string): unknown, list(value: unknown, what: string): unknown[] | null }} SchemaReader
 */

/** Plain reads (the pipeline's: its schemas are the tool's own data). @type {SchemaReader} */
const PLAIN = { get: (schema, key) => Reflect.get(schema, key), list: (value) => (Array.isArray(value) ? value : null) };

/** What a reader's errors call a `type` list and a branch list. */
export const TYPE_LIST = 'a `type` list';
export const BRANCHES = 'an `anyOf`/`oneOf` list';

/**
 * What the \`type\` keyword says: \`[type]\` for a string, the items of a list as they are (the
 * caller decides what a non-string item means), \`null\` for anything else (absent).
 * @param {object} schema
 * @param {SchemaReader} read
 * @returns {unknown[] | null}
 */
export function typeList(schema, read) {
  const type = read.get(schema, 'type');
  return typeof type === 'string' ? [type] : read.list(type, TYPE_LIST);
}

/**
 * The branches of \`keyword\` (\`anyOf\` or \`oneOf\`), \`null\` when it is not a list.
 * @param {object} schema
 * @param {'anyOf' | 'oneOf'} keyword
 * @param {SchemaReader} read
 */
export const branchList = (schema, keyword, read) => read.list(read.get(schema, keyword), BRANCHES);

/** A plain object (not an array, not null). @param {unknown} value @returns {value is Record<string, unknown>} */
const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The JSON types a property schema admits, from `type` (string or list) and `anyOf` / `oneOf`
 * branches (`anyOf` when it is a list); `null` when the schema does not say (no `type`, a `$ref`,
 * `true`, a branch that does not say, more than 8 levels).
 * @param {unknown} schema
 * @returns {Set<string> | null}
 */
export function admittedTypes(schema, depth = 0) {
  if (!isPlainObject(schema) || depth > 8) return null;
  const type = typeList(schema, PLAIN);
  if (type) return type.every((t) => typeof t === 'string') ? new Set(/** @type {string[]} */ (type)) : null;
  const branches = branchList(schema, 'anyOf', PLAIN) ?? branchList(schema, 'oneOf', PLAIN);
  if (!branches || branches.length === 0) return null;
  /** @type {Set<string>} */
  const all = new Set();
  for (const branch of branches) {
    const types = admittedTypes(branch, depth + 1);
    if (!types) return null;
    for (const t of types) all.add(t);
  }
  return all;
}
