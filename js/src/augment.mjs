// `augmentTools`: declares `<name>_uri` reference parameters in the tools of MCP servers that
// never heard of references, in plain JavaScript (no WebAssembly needed).
//
// A model fills in the parameters a tool's schema declares, and strict tool-calling modes reject
// undeclared ones, so a host that substitutes `<name>_uri` references declares those parameters
// itself. For each top-level property of a tool's `inputSchema` that takes an array (and, on
// request, an object), the augmented copy gains a sibling `<name>_uri` right after it, `<name>`
// leaves `required` and its description says so. No `anyOf` "one of them is required" is added:
// strict modes handle it poorly.
//
// Every read of a caller's value is a catching one, and each object on the path (the list, a
// tool, its `inputSchema`, `properties`, a property schema, `required`, a `type`, `anyOf` or
// `oneOf` list) is read whole first (`readable`): a revoked Proxy or a throwing getter is a
// TypeError naming it; nothing else is thrown. Caller keys are copied as the exact strings they
// are and defined as data properties, so keys such as `__proto__` stay plain data and no setter
// runs. Property names with a lone surrogate are copied but get no sibling.

// The suffix `beforeToolCall` resolves and the scheme of references, from the Rust constants
// (`core::substitute::URI_ARG_SUFFIX`, `core::uri::CACHE_URI_SCHEME`; scripts/constants.mjs).
import { CACHE_URI_SCHEME, URI_ARG_SUFFIX as URI } from '../protocol.mjs';
import { branchList, typeList } from '../schema-types.mjs';
import { setOwn } from '../own.mjs';

// Description of every added `<name>_uri` parameter, written for the model.
const URI_DESCRIPTION =
  `Reference to data returned by an earlier tool call: copy an ${CACHE_URI_SCHEME} value verbatim from that result (its \`_cache_uri\`, or a value of its \`_cache_refs\`). Prefer this over re-typing the data. Append #/path (a JSON Pointer) to use part of the result, e.g. ${CACHE_URI_SCHEME}abc/XYZ#/rows.`;

const EXPECTS = 'augmentTools expects an array of tools or a tools/list result ({ tools: [...] })';

// What the TypeErrors name.
const PROPERTIES = 'inputSchema.properties';
const REQUIRED = 'inputSchema.required';
const PROPERTY = 'a property schema';

// Most items read from one array (2 ** 20): far above any real list.
const ARRAY_LIMIT = 1048576;

// A lone surrogate (`u` flag: a surrogate pair is one code point, not matched).
const LONE = /\p{Cs}/gu;

/**
 * Caller values: anything, read only through the catching readers below (which hand a
 * non-object to `Reflect.get`/`Object.keys` on purpose: the TypeError is caught there).
 * @typedef {unknown} Value
 * @typedef {import('../../pkg/web/mcp_result_cache.js').McpTool} McpTool
 */

/** @type {(message: string) => never} */
const fail = (message) => {
  throw new TypeError(message);
};
/** @type {(what: string) => never} */
const unreadable = (what) =>
  fail(`augmentTools: ${what} cannot be read (a getter threw, or it is a revoked Proxy)`);

/** @type {(value: Value) => value is object} */
const isObject = (value) => typeof value == 'object' && value !== null;
// Array.isArray; false when it throws (a revoked Proxy).
const isArray = (/** @type {Value} */ value) => {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
};
/** @type {(value: Value) => value is object} */
const isPlain = (value) => isObject(value) && !isArray(value);
const isList = (/** @type {Value} */ value) => isObject(value) && isArray(value);

// `object[key]`; undefined when the read throws.
/** @type {(object: Value, key: string | number) => Value} */
const get = (object, key) => {
  try {
    return Reflect.get(/** @type {object} */ (object), key);
  } catch {
    // undefined
  }
};
// `object[key]` for an own property (inherited values are never read); undefined otherwise, and
// when the check or the read throws.
/** @type {(object: Value, key: string) => Value} */
const own = (object, key) => {
  try {
    if (Object.hasOwn(/** @type {object} */ (object), key)) return Reflect.get(/** @type {object} */ (object), key);
  } catch {
    // undefined
  }
};
// `object[key]`; a read that throws is the TypeError naming `what`.
/** @type {(object: Value, key: string, what: string) => Value} */
const at = (object, key, what) => {
  try {
    return Reflect.get(/** @type {object} */ (object), key);
  } catch {
    unreadable(what);
  }
};
// The own enumerable keys, as the exact strings.
/** @type {(object: Value, what: string) => string[]} */
const keys = (object, what) => {
  try {
    return Object.keys(/** @type {object} */ (object));
  } catch {
    unreadable(what);
  }
};

// Checks that an object's top level reads without throwing: Array.isArray (throws on a revoked
// Proxy), its keys, and each of their values. Returns Array.isArray's answer only so that
// minifiers keep that call (callers ask again, as the value may have changed since).
/** @type {(value: Value, what: string) => boolean | undefined} */
const readable = (value, what) => {
  if (isObject(value)) {
    try {
      const array = Array.isArray(value);
      for (const key of Object.keys(value)) Reflect.get(value, key);
      return array;
    } catch {
      unreadable(what);
    }
  }
};

// The items of an array of at most ARRAY_LIMIT items (an item that cannot be read is undefined).
// `length` is read once, before the items: the limit holds for the number of items read.
/** @type {(array: Value, what: string) => Value[]} */
const items = (array, what) => {
  const length = at(array, 'length', what);
  if (typeof length == 'number' && length > ARRAY_LIMIT) {
    fail('augmentTools: an array has more than 1048576 items');
  }
  readable(array, what);
  const out = [];
  const n = typeof length == 'number' && length > 0 ? length >>> 0 : 0;
  for (let i = 0; i < n; i++) out.push(get(array, i));
  return out;
};


// A copy of `source`'s own enumerable properties in their order, with `value` in place of `name`
// (appended when `source` lacks it).
/** @type {(source: Value, name: string, value: Value, what: string) => Record<string, Value>} */
const replace = (source, name, value, what) => {
  /** @type {Record<string, Value>} */
  const copy = {};
  let placed = false;
  for (const key of keys(source, what)) {
    if (key === name) placed = true;
    setOwn(copy, key, key === name ? value : at(source, key, what));
  }
  if (!placed) setOwn(copy, name, value);
  return copy;
};

// Schema keywords read as the shared type reader needs them (../schema-types.mjs): own
// properties only, and a list read whole first.
const READ = {
  get: own,
  list: (/** @type {Value} */ value, /** @type {string} */ what) => {
    readable(value, what);
    return isList(value) ? items(value, what) : null;
  },
};

// The `type` keyword's names: its string, or the strings of a list.
const types = (/** @type {object} */ schema) => (typeList(schema, READ) ?? []).filter((name) => typeof name == 'string');

// [takes an array, takes an object] for one property schema: `type` is (or lists) "array" /
// "object", `items`/`prefixItems` / `properties` is present, or (with `branches`) an `anyOf` /
// `oneOf` branch says so. Only one level of branches is read. A schema that is not an object
// (`true`, `false`) takes neither.
/** @type {(schema: Value, branches?: boolean) => [boolean, boolean]} */
const facts = (schema, branches) => {
  readable(schema, PROPERTY);
  if (!isPlain(schema)) return [false, false];
  const type = types(schema);
  const present = (/** @type {string} */ key) => own(schema, key) !== undefined;
  const hasItems = present('items') || present('prefixItems');
  const hasProperties = present('properties');
  const result = /** @type {[boolean, boolean]} */ ([hasItems || type.includes('array'), hasProperties || type.includes('object')]);
  if (branches) {
    for (const keyword of /** @type {const} */ (['anyOf', 'oneOf'])) {
      for (const branch of branchList(schema, keyword, READ) ?? []) {
        const [array, object] = facts(branch);
        result[0] ||= array;
        result[1] ||= object;
      }
    }
  }
  return result;
};

// A copy of a property schema whose description (the original text first, when there is one)
// ends with a note about its sibling; a schema that is not an object (`true`) stays as it is.
/** @type {(schema: Value, uri: string) => Value} */
const described = (schema, uri) => {
  if (!isPlain(schema)) return schema;
  const original = own(schema, 'description');
  // A lone surrogate in the original text becomes U+FFFD.
  let text = typeof original == 'string' ? original.replace(LONE, '\uFFFD') : '';
  // A space after text that does not end in white space (Unicode White_Space).
  if (/[^\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]$/.test(text)) text += ' ';
  return replace(schema, 'description', `${text}Or pass \`${uri}\` instead (a reference to an earlier result).`, PROPERTY);
};

// One tool, augmented: a copy when it gains a sibling, else the very same value.
/** @type {(tool: Value, objects: boolean) => Value} */
const augmentTool = (tool, objects) => {
  readable(tool, 'a tool');
  if (!isPlain(tool)) return tool;
  const schema = own(tool, 'inputSchema');
  readable(schema, 'inputSchema');
  if (!isPlain(schema)) return tool;
  const type = types(schema);
  if (type.length && !type.includes('object')) return tool; // not an object schema
  const properties = own(schema, 'properties');
  readable(properties, PROPERTIES);
  if (!isPlain(properties)) return tool;

  // The plan: property name -> its sibling's name. A property gets one when it takes an array
  // (or, with `objects`, an object), unless its name has a lone surrogate, is empty or ends in
  // the reference suffix (its sibling would resolve into it), or the sibling is already declared.
  const names = keys(properties, PROPERTIES);
  const plan = new Map();
  for (const name of names) {
    if (name.search(LONE) >= 0) continue;
    const [array, object] = facts(at(properties, name, PROPERTIES), true);
    const uri = name + URI;
    if ((array || (objects && object)) && name && !name.endsWith(URI) && !names.includes(uri)) {
      plan.set(name, uri);
    }
  }
  const required = own(schema, 'required');
  readable(required, REQUIRED);
  const requiredItems = isList(required) ? items(required, REQUIRED) : [];
  if (!plan.size) return tool;

  const newProperties = {};
  for (const name of names) {
    const value = at(properties, name, PROPERTIES);
    const uri = plan.get(name);
    setOwn(newProperties, name, uri ? described(value, uri) : value);
    if (uri) setOwn(newProperties, uri, { type: 'string', description: URI_DESCRIPTION });
  }
  let newSchema = replace(schema, 'properties', newProperties, 'inputSchema');
  // A property with a sibling is no longer required: the host fills it from the reference.
  const kept = requiredItems.filter((item) => !plan.has(item));
  if (kept.length < requiredItems.length) newSchema = replace(newSchema, 'required', kept, 'inputSchema');
  return replace(tool, 'inputSchema', newSchema, 'a tool');
};

/** @type {(list: Value, objects: boolean) => Value[]} */
const augmentList = (list, objects) => items(list, 'tools').map((tool) => augmentTool(tool, objects));

/**
 * `augmentTools(tools, options?)`: declares `<name>_uri` reference parameters for servers that
 * never heard of references, so that models see them and strict tool-calling modes accept them.
 *
 * `tools` is the `tools` array of an MCP `tools/list` result, or the whole result
 * (`{ tools: [...] }`, returned in the same shape with its other keys kept). For each tool
 * whose `inputSchema` is an object schema with `properties`, every top-level property that
 * takes an array (`type: "array"` or a `type` list with it, `items`/`prefixItems`, or an
 * `anyOf`/`oneOf` branch typed `"array"`) gains a sibling
 * `<name>_uri: { type: "string", description }` placed right after it, whose description
 * tells the model to copy a reference verbatim from an earlier result (its
 * `_cache_uri`, or a value of its `_cache_refs`), to prefer it over re-typing the data, and
 * that `#/json/pointer` may be appended. With `{ objects: true }`, properties that take an
 * object (`type: "object"`, `properties`) get one too.
 *
 * `<name>` is then no longer `required` (the host's `beforeToolCall` fills it from the
 * reference before the server sees the call), and its description ends with "Or pass
 * `<name>_uri` instead (…)." No `anyOf` is added; with `additionalProperties: false`, both
 * `{ data: [...] }` and the same object with the reference sibling instead validate.
 *
 * Left alone: a property whose `<name>_uri` is already declared (servers built for
 * references; augmenting twice changes nothing), a property whose name ends in the suffix, a
 * property given only by `$ref` (not followed), and tools without a usable schema (no
 * `inputSchema`, a non-object schema, no `properties`). Tools that gain nothing come back as
 * the very same objects; augmented tools are copies (the tool, `inputSchema`, `properties`,
 * `required` and the touched property schemas; everything else is shared). The input is never
 * mutated.
 *
 * Throws a `TypeError` when `tools` is neither an array nor `{ tools: [...] }`, when
 * `options` is not an object or `options.objects` is not a boolean, or when a value on the way
 * cannot be read (a revoked `Proxy`, a throwing getter).
 *
 * ```js
 * const { tools } = await client.listTools();
 * const augmented = augmentTools(tools);
 * // chart.create's inputSchema.properties now has data_uri next to data.
 * ```
 * @param {readonly McpTool[] | { tools: readonly McpTool[] }} tools
 * @param {{ objects?: boolean } | null} [options]
 * @returns {McpTool[] | { tools: McpTool[] }}
 */
export function augmentTools(tools, options) {
  let objects = false;
  if (isObject(options)) {
    objects = /** @type {boolean} */ (at(options, 'objects', 'options.objects'));
    if (objects === undefined) objects = false;
    else if (typeof objects != 'boolean') fail('augmentTools: options.objects must be a boolean');
  } else if (!/** @type {unknown[]} */ ([undefined, null]).includes(options)) {
    // Strict comparisons (`document.all` is rejected), which minifiers would turn into `!= null`.
    fail('augmentTools: options must be an object');
  }
  readable(tools, 'tools');
  if (!isObject(tools)) fail(EXPECTS);
  if (isArray(tools)) return /** @type {McpTool[]} */ (augmentList(tools, objects));
  const list = own(tools, 'tools');
  readable(list, 'tools');
  if (!isList(list)) fail(EXPECTS);
  return /** @type {{ tools: McpTool[] }} */ (replace(tools, 'tools', augmentList(list, objects), 'the tools/list result'));
}
