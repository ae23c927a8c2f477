// The rules and the value handling of augmentTools (js/src/augment.mjs), in plain JavaScript:
// which properties gain a `<name>_uri` sibling, how `required` and descriptions change, what is
// copied and what is shared, and the TypeErrors for input that cannot be read.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { augmentTools } from '../../js/src/augment.mjs';

/**
 * A property schema of an augmented tool, as the assertions read it.
 * @typedef {{ type?: unknown, description: string, items?: unknown, [key: string]: unknown }} PropertySchema
 * A tool `augmentTools` answers, as the assertions read it (its JSDoc types it `McpTool`).
 * @typedef {{
 *   name: string, annotations?: unknown,
 *   inputSchema: { properties: Record<string, PropertySchema>, required?: unknown, [key: string]: unknown },
 * }} Tool
 * The hostile cases: a label, and what makes the value (of no declared type).
 * @typedef {Array<[string, () => unknown]>} Cases
 */

const SIBLING_DESCRIPTION =
  'Reference to data returned by an earlier tool call: copy an mcp+cache:// value verbatim from that result (its `_cache_uri`, or a value of its `_cache_refs`). Prefer this over re-typing the data. Append #/path (a JSON Pointer) to use part of the result, e.g. mcp+cache://abc/XYZ#/rows.';
const note = (/** @type {string} */ uri) => `Or pass \`${uri}\` instead (a reference to an earlier result).`;
const EXPECTS = 'augmentTools expects an array of tools or a tools/list result ({ tools: [...] })';
const unreadable = (/** @type {string} */ what) => `augmentTools: ${what} cannot be read (a getter threw, or it is a revoked Proxy)`;

/**
 * A tool whose inputSchema has `properties` (and `required`, when given).
 * @template P
 * @param {P} properties
 * @param {unknown} [required]
 * @param {Record<string, unknown>} [extra]
 */
const tool = (properties, required, extra = {}) => ({
  name: 't',
  inputSchema: { type: 'object', properties, ...(required ? { required } : {}), ...extra },
});
/**
 * The `_uri` siblings one property schema gains (none, or `d_uri`).
 * @param {unknown} schema
 * @param {{ objects?: boolean }} [options]
 */
const siblingsOf = (schema, options) => {
  const [out] = /** @type {Tool[]} */ (augmentTools([tool({ d: schema })], options));
  return Object.keys(out.inputSchema.properties).filter((k) => k !== 'd');
};
const takesArray = (/** @type {unknown} */ schema) => siblingsOf(schema).length === 1;
const takesObjectOrArray = (/** @type {unknown} */ schema) => siblingsOf(schema, { objects: true }).length === 1;

const revoked = (target = {}) => {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
};
/** @type {<T>(object: T, key: PropertyKey) => T} */
const throwingGetter = (object, key) =>
  Object.defineProperty(object, key, { enumerable: true, configurable: true, get() { throw new Error('boom'); } });
const throwsTypeError = (/** @type {() => unknown} */ fn, /** @type {string} */ message) =>
  assert.throws(fn, (e) => {
    assert.ok(e instanceof TypeError, `${e}`);
    assert.equal(e.message, message);
    return true;
  });

/** Own keys and property descriptors, deeply (values by identity below `depth`). */
/** @type {(value: unknown, depth?: number) => unknown} */
const snapshot = (value, depth = 6) => {
  if (typeof value !== 'object' || value === null || depth === 0) return value;
  return [Object.getPrototypeOf(value), Reflect.ownKeys(value).map((k) => {
    const d = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(value, k));
    return [k, d.writable, d.enumerable, d.configurable, d.get, d.set, snapshot(d.value, depth - 1), d.value];
  })];
};

// --- The rules (src/core/augment.rs) ---

test('array classification: type, type lists, items, prefixItems, anyOf/oneOf branches', () => {
  assert.ok(takesArray({ type: 'array' }));
  assert.ok(takesArray({ type: ['array', 'null'] }));
  assert.ok(takesArray({ items: { type: 'string' } }));
  assert.ok(takesArray({ prefixItems: [{ type: 'number' }] }));
  assert.ok(takesArray({ anyOf: [{ type: 'string' }, { type: 'array' }] }));
  assert.ok(takesArray({ oneOf: [{ type: 'null' }, { items: {} }] }));
  for (const schema of [{}, { type: 'string' }, { type: 'object' }, { type: ['integer', 'null'] }, true, false]) {
    assert.deepEqual(siblingsOf(schema), [], JSON.stringify(schema));
  }
  // Branches of other types do not make a schema take an object.
  assert.deepEqual(siblingsOf({ anyOf: [{ type: 'string' }, { type: 'null' }] }, { objects: true }), []);
});

test('object classification (with { objects: true }): type, type lists, properties, branches', () => {
  assert.ok(takesObjectOrArray({ type: 'object' }));
  assert.ok(takesObjectOrArray({ type: ['null', 'object'] }));
  assert.ok(takesObjectOrArray({ properties: {} }));
  assert.ok(takesObjectOrArray({ anyOf: [{ type: 'object' }] }));
  assert.ok(takesObjectOrArray({ oneOf: [{ type: 'string' }, { properties: { a: {} } }] }));
  assert.ok(!takesArray({ type: 'object' }), 'objects only with the option');
  assert.ok(!takesObjectOrArray({}));
  assert.ok(!takesObjectOrArray({ type: 'string' }));
});

test('only one level of anyOf/oneOf branches is read', () => {
  assert.ok(!takesArray({ anyOf: [{ anyOf: [{ type: 'array' }] }] }));
  assert.ok(!takesArray({ oneOf: [{ oneOf: [{ type: 'array' }] }] }));
  assert.ok(!takesObjectOrArray({ anyOf: [{ oneOf: [{ type: 'object' }] }] }));
  assert.ok(takesArray({ anyOf: [{ anyOf: [] }, { type: 'array' }] }));
});

test('the inputSchema must be an object schema: no type, or a type that is (or lists) "object"', () => {
  const withType = (/** @type {unknown} */ type) => ({ name: 't', inputSchema: { ...(type === undefined ? {} : { type }), properties: { d: { type: 'array' } } } });
  for (const type of [undefined, 'object', ['object', 'null'], ['null', 'object']]) {
    const input = withType(type);
    const [out] = /** @type {Tool[]} */ (augmentTools([input]));
    assert.notEqual(out, input, `type ${JSON.stringify(type)}: augmented`);
    assert.ok(out.inputSchema.properties.d_uri, `type ${JSON.stringify(type)}`);
  }
  for (const type of ['array', 'string', ['array', 'null'], [], 7]) {
    const input = withType(type);
    const [out] = /** @type {Tool[]} */ (augmentTools([input]));
    const augmented = out !== /** @type {unknown} */ (input);
    // A `type` that is neither a string nor a list counts as absent; an empty list too.
    assert.equal(augmented, type === 7 || (Array.isArray(type) && type.length === 0), `type ${JSON.stringify(type)}`);
  }
});

test('arrays gain a sibling right after them and stop being required', () => {
  const input = tool(
    { title: { type: 'string' }, data: { type: 'array' }, series: { type: 'array' } },
    ['title', 'data'],
  );
  const [out] = /** @type {Tool[]} */ (augmentTools([input]));
  assert.deepEqual(Object.keys(out.inputSchema.properties), ['title', 'data', 'data_uri', 'series', 'series_uri']);
  assert.deepEqual(out.inputSchema.required, ['title']);
  assert.deepEqual(out.inputSchema.properties.data_uri, { type: 'string', description: SIBLING_DESCRIPTION });
  assert.deepEqual(out.inputSchema.properties.series_uri, { type: 'string', description: SIBLING_DESCRIPTION });
  assert.equal(out.inputSchema.properties.data.description, note('data_uri'));
});

test('objects gain a sibling only with { objects: true }', () => {
  const input = tool({ filter: { type: 'object' }, rows: { type: 'array' } });
  const names = (/** @type {{ objects?: boolean } | null | undefined} */ options) => Object.keys(/** @type {Tool[]} */ (augmentTools([input], options))[0].inputSchema.properties).filter((k) => k.endsWith('_uri'));
  assert.deepEqual(names(undefined), ['rows_uri']);
  assert.deepEqual(names({ objects: false }), ['rows_uri']);
  assert.deepEqual(names({}), ['rows_uri']);
  assert.deepEqual(names(null), ['rows_uri']);
  assert.deepEqual(names({ objects: true }), ['filter_uri', 'rows_uri']);
});

test('a property whose `<name>_uri` is already declared is left alone', () => {
  const input = tool({ data: { type: 'array' }, data_uri: { type: 'string' } }, ['data']);
  const [out] = /** @type {Tool[]} */ (augmentTools([input], { objects: true }));
  assert.equal(out, input);
  // Declared before the property, too.
  const before = tool({ rows_uri: { type: 'string' }, rows: { type: 'array' } });
  assert.equal(/** @type {Tool[]} */ (augmentTools([before]))[0], before);
});

test('reference parameters (`*_uri`) and empty names get no sibling', () => {
  const input = tool({ series_uri: { type: 'array' }, '': { type: 'array' }, _uri: { type: 'object' } });
  const [out] = /** @type {Tool[]} */ (augmentTools([input], { objects: true }));
  assert.equal(out, input);
  // An empty name alone (no `_uri` property declared).
  const empty = tool({ '': { type: 'array' }, n: { type: 'number' } });
  assert.equal(/** @type {Tool[]} */ (augmentTools([empty]))[0], empty);
});

test('augmenting twice changes nothing', () => {
  const input = tool({ data: { type: 'array' }, config: { type: 'object' }, n: { type: 'integer' } }, ['data', 'n']);
  const once = /** @type {Tool[]} */ (augmentTools([input], { objects: true }));
  assert.deepEqual(Object.keys(once[0].inputSchema.properties), ['data', 'data_uri', 'config', 'config_uri', 'n']);
  assert.deepEqual(once[0].inputSchema.required, ['n']);
  const copy = structuredClone(once);
  const twice = /** @type {Tool[]} */ (augmentTools(once, { objects: true }));
  assert.equal(twice[0], once[0], 'nothing left to add: the same object');
  assert.deepEqual(twice, copy);
});

test('descriptions keep the original text first', () => {
  const described = (/** @type {unknown} */ description, name = 'data') =>
    /** @type {Tool[]} */ (augmentTools([tool({ [name]: { type: 'array', description } })]))[0].inputSchema.properties[name].description;
  assert.equal(described('Rows to plot.'), 'Rows to plot. Or pass `data_uri` instead (a reference to an earlier result).');
  assert.equal(described('Rows\n'), 'Rows\nOr pass `data_uri` instead (a reference to an earlier result).');
  for (const empty of [undefined, '', '  ', 3, null]) {
    const text = described(empty, 'rows');
    assert.ok(text.endsWith(note('rows_uri')), text);
    assert.ok(text.trimStart().startsWith('Or pass'), text);
  }
  assert.equal(described(''), note('data_uri'));
  assert.equal(described('  '), `  ${note('data_uri')}`);
  // White space is Unicode White_Space: NEL and NBSP count, a byte order mark does not.
  assert.equal(described('Rows\u0085'), `Rows\u0085${note('data_uri')}`);
  assert.equal(described('Rows\u00A0'), `Rows\u00A0${note('data_uri')}`);
  assert.equal(described('Rows\uFEFF'), `Rows\uFEFF ${note('data_uri')}`);
  assert.equal(described('Rows 😀'), `Rows 😀 ${note('data_uri')}`);
  // A lone surrogate in the original text becomes U+FFFD.
  assert.equal(described('Rows \uD800'), `Rows \uFFFD ${note('data_uri')}`);
});

test('the sibling description guides the model', () => {
  const [out] = /** @type {Tool[]} */ (augmentTools([tool({ data: { type: 'array' } })]));
  const { data_uri: sibling } = out.inputSchema.properties;
  for (const needle of ['mcp+cache://', 'verbatim', '`_cache_uri`', '`_cache_refs`', 'Prefer this over re-typing', 'JSON Pointer']) {
    assert.ok(sibling.description.includes(needle), needle);
  }
  assert.equal(sibling.description, SIBLING_DESCRIPTION);
  assert.deepEqual(Object.keys(sibling), ['type', 'description']);
});

// --- Reading the values and building the copies (src/bindings/augment.rs) ---

test('tools that gain nothing come back as the very same objects; the list is always new', () => {
  const tools = [
    { name: 'ping' },
    { name: 'no-properties', inputSchema: { type: 'object' } },
    { name: 'array-schema', inputSchema: { type: 'array', items: {} } },
    { name: 'strings', inputSchema: { type: 'object', properties: { s: { type: 'string' } } } },
    tool({ d: { type: 'array' } }),
    null,
    'not a tool',
    [{ inputSchema: { properties: { d: { type: 'array' } } } }],
    { name: 'props list', inputSchema: { properties: [{ type: 'array' }] } },
  ];
  const out = /** @type {Tool[]} */ (augmentTools(/** @type {never} */ (tools))); // not all tools, on purpose
  assert.notEqual(out, tools);
  assert.equal(out.length, tools.length);
  tools.forEach((t, i) => (i === 4 ? assert.notEqual(out[i], t) : assert.equal(out[i], t, `tool ${i}`)));
  assert.deepEqual(augmentTools([]), []);
});

test('copies share everything they do not change, and never mutate the input', () => {
  const items = { type: 'object', properties: { a: { type: 'number' } } };
  const input = {
    name: 'chart',
    annotations: { readOnlyHint: true },
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { title: { type: 'string' }, data: { type: 'array', items, description: 'Rows.' } },
      required: ['title', 'data'],
      additionalProperties: false,
    },
  };
  const before = snapshot(input);
  const [out] = /** @type {Tool[]} */ (augmentTools([input]));
  assert.deepEqual(snapshot(input), before, 'input unchanged');
  assert.notEqual(out.inputSchema, input.inputSchema);
  assert.notEqual(out.inputSchema.properties, input.inputSchema.properties);
  assert.notEqual(out.inputSchema.required, input.inputSchema.required);
  assert.notEqual(out.inputSchema.properties.data, input.inputSchema.properties.data);
  assert.equal(out.annotations, input.annotations);
  assert.equal(out.inputSchema.properties.title, input.inputSchema.properties.title);
  assert.equal(out.inputSchema.properties.data.items, items);
  assert.deepEqual(Object.keys(out), ['name', 'annotations', 'inputSchema']);
  assert.deepEqual(Object.keys(out.inputSchema), ['$schema', 'type', 'properties', 'required', 'additionalProperties']);
  assert.deepEqual(Object.keys(out.inputSchema.properties.data), ['type', 'items', 'description']);
  // Every property of a copy is a plain data property.
  for (const object of [out, out.inputSchema, out.inputSchema.properties, out.inputSchema.properties.data, out.inputSchema.properties.data_uri]) {
    assert.equal(Object.getPrototypeOf(object), Object.prototype);
    for (const key of Reflect.ownKeys(object)) {
      const d = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(object, key));
      assert.deepEqual([d.writable, d.enumerable, d.configurable, 'value' in d], [true, true, true, true], /** @type {string} */ (key));
    }
  }
  assert.ok(Array.isArray(out.inputSchema.required));
});

test('a description is appended when the property has none; `required` is added only when it changes', () => {
  const [out] = /** @type {Tool[]} */ (augmentTools([tool({ d: { type: 'array', title: 'D' } }, ['x'])]));
  assert.deepEqual(Object.keys(out.inputSchema.properties.d), ['type', 'title', 'description']);
  assert.deepEqual(out.inputSchema.required, ['x']);
  const [none] = /** @type {Tool[]} */ (augmentTools([tool({ d: { type: 'array' } })]));
  assert.equal('required' in none.inputSchema, false);
  const notAList = tool({ d: { type: 'array' } }, 'd');
  assert.equal(/** @type {Tool[]} */ (augmentTools([notAList]))[0].inputSchema.required, 'd');
});

test('required: every copy of the name is dropped, other items (non-strings too) stay in order', () => {
  const [out] = /** @type {Tool[]} */ (augmentTools([tool({ d: { type: 'array' }, e: { type: 'string' } }, [7, 'd', null, 'e', 'd', { d: 1 }, 'f'])]));
  assert.deepEqual(out.inputSchema.required, [7, null, 'e', { d: 1 }, 'f']);
});

test('a { tools: [...] } result comes back in the same shape, other keys kept in order', () => {
  const untouched = { name: 'ping' };
  const result = { _meta: { m: 1 }, tools: [tool({ d: { type: 'array' } }), untouched], nextCursor: 'p2' };
  const before = snapshot(result);
  const out = /** @type {{ _meta?: unknown, tools: Tool[] }} */ (augmentTools(result));
  assert.deepEqual(snapshot(result), before);
  assert.notEqual(out, result);
  assert.notEqual(out.tools, result.tools);
  assert.deepEqual(Object.keys(out), ['_meta', 'tools', 'nextCursor']);
  assert.equal(out._meta, result._meta);
  assert.equal(out.tools[1], untouched);
  assert.ok(out.tools[0].inputSchema.properties.d_uri);
  // Nothing to add: still a new result object and a new list, holding the same tools.
  const plain = { tools: [untouched] };
  const same = /** @type {{ tools: Tool[] }} */ (augmentTools(plain));
  assert.notEqual(same, plain);
  assert.equal(same.tools[0], untouched);
});

test('a property given only by $ref is not followed', () => {
  const input = {
    name: 't',
    inputSchema: { type: 'object', properties: { d: { $ref: '#/$defs/rows' } }, $defs: { rows: { type: 'array' } } },
  };
  assert.equal(/** @type {Tool[]} */ (augmentTools([input], { objects: true }))[0], input);
});

test('only own properties are read: inherited `type`, `items` and `properties` do not count', () => {
  const inherited = Object.create({ type: 'array', items: {}, properties: {} });
  assert.deepEqual(siblingsOf(inherited, { objects: true }), []);
  const schema = Object.create({ properties: { d: { type: 'array' } } });
  const input = { name: 't', inputSchema: schema };
  assert.equal(/** @type {Tool[]} */ (augmentTools([input]))[0], input);
  const heir = Object.create(tool({ d: { type: 'array' } }));
  assert.equal(/** @type {Tool[]} */ (augmentTools([heir]))[0], heir);
});

test('keys such as __proto__ stay plain data', () => {
  const input = JSON.parse(`{"name":"t","inputSchema":{"type":"object","properties":{
    "__proto__":{"type":"array","description":"proto rows"},"x":{"type":"string"}},"required":["__proto__"]},"__proto__":{"y":1}}`);
  const [out] = /** @type {Tool[]} */ (augmentTools([input]));
  const props = out.inputSchema.properties;
  assert.equal(Object.getPrototypeOf(props), Object.prototype);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ['name', 'inputSchema', '__proto__']);
  assert.deepEqual(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(out, '__proto__')).value, { y: 1 });
  assert.deepEqual(Object.keys(props), ['__proto__', '__proto___uri', 'x']);
  assert.equal(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(props, '__proto__')).value.description, `proto rows ${note('__proto___uri')}`);
  assert.deepEqual(out.inputSchema.required, []);
  assert.equal(/** @type {{ type?: unknown }} */ ({}).type, undefined, 'Object.prototype untouched');
});

test('a property name with a lone surrogate is kept as it is but gets no sibling', () => {
  const lone = '\uD800rows';
  const input = tool(
    { [lone]: { type: 'array' }, '\uFFFDrows': { type: 'string' }, 'a\uDC00': { type: 'object' }, '😀': { type: 'array' } },
    [lone, '😀'],
  );
  const [out] = /** @type {Tool[]} */ (augmentTools([input], { objects: true }));
  assert.deepEqual(Object.keys(out.inputSchema.properties), [lone, '\uFFFDrows', 'a\uDC00', '😀', '😀_uri']);
  assert.equal(out.inputSchema.properties[lone], input.inputSchema.properties[lone]);
  assert.deepEqual(out.inputSchema.required, [lone]);
  const onlyLone = tool({ [lone]: { type: 'array' } });
  assert.equal(/** @type {Tool[]} */ (augmentTools([onlyLone]))[0], onlyLone);
});

test('a property schema that is not an object stays as it is next to its sibling', () => {
  // `true` takes no array by itself, but a getter may hand out another value on the second read.
  let reads = 0;
  const properties = Object.defineProperty({}, 'd', {
    enumerable: true,
    get: () => (++reads <= 2 ? { type: 'array' } : true),
  });
  const [out] = /** @type {Tool[]} */ (augmentTools([tool(properties)]));
  assert.equal(out.inputSchema.properties.d, true);
  assert.ok(out.inputSchema.properties.d_uri);
});

// --- TypeErrors ---

// The values outside augmentTools' declared types below are given on purpose (cast to `never`).

test('tools that are neither an array nor { tools: [...] }', () => {
  for (const tools of [undefined, null, 'tools', 42, true, {}, { tools: 'x' }, { tools: {} }, { tools: null },
    { length: 3e9 }, () => [], Object.create({ tools: [] })]) {
    throwsTypeError(() => augmentTools(/** @type {never} */ (tools)), EXPECTS);
  }
});

test('bad options, checked before the tools', () => {
  for (const options of [5, 'objects', true, () => ({ objects: true })]) {
    throwsTypeError(() => augmentTools(/** @type {never} */ (undefined), /** @type {never} */ (options)), 'augmentTools: options must be an object');
  }
  for (const options of [{ objects: 'yes' }, { objects: 1 }, { objects: null }, Object.create({ objects: 0 })]) {
    throwsTypeError(() => augmentTools(/** @type {never} */ ('not tools'), /** @type {never} */ (options)), 'augmentTools: options.objects must be a boolean');
  }
  const objectsUnreadable = 'augmentTools: options.objects cannot be read (a getter threw, or it is a revoked Proxy)';
  throwsTypeError(() => augmentTools([], revoked()), objectsUnreadable);
  throwsTypeError(() => augmentTools([], throwingGetter({}, 'objects')), objectsUnreadable);
  // Inherited and undefined values are read like any other.
  assert.ok(/** @type {Tool[]} */ (augmentTools([tool({ o: { type: 'object' } })], Object.create({ objects: true })))[0].inputSchema.properties.o_uri);
  assert.deepEqual(augmentTools([], { objects: undefined }), []);
});

test('arrays of more than 1048576 items', () => {
  const limit = 'augmentTools: an array has more than 1048576 items';
  throwsTypeError(() => augmentTools(new Array(2 ** 32 - 1)), limit);
  throwsTypeError(() => augmentTools({ tools: new Array(2 ** 20 + 1) }), limit);
  throwsTypeError(() => augmentTools([tool({ d: { type: 'array' } }, new Array(2 ** 20 + 1))]), limit);
  throwsTypeError(() => augmentTools([tool({ d: { type: new Array(2 ** 20 + 1) } })]), limit);
  throwsTypeError(() => augmentTools([tool({ d: { anyOf: new Array(2 ** 20 + 1) } })]), limit);
  throwsTypeError(() => augmentTools(new Proxy([], { get: (t, k) => (k === 'length' ? Infinity : /** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (t))[k]) })), limit);
  assert.equal(/** @type {Tool[]} */ (augmentTools(new Array(2 ** 20))).length, 2 ** 20);
  // `length` is read once: an array whose length grows after that read yields the items counted.
  let reads = 0;
  const growing = new Proxy([tool({ d: { type: 'array' } })], { get: (t, k) => (k === 'length' ? (reads++ ? 2 ** 31 : 1) : /** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (t))[k]) });
  const out = /** @type {Tool[]} */ (augmentTools(growing));
  assert.equal(out.length, 1);
  assert.ok(out[0].inputSchema.properties.d_uri);
  // A `length` that is not a number (only a Proxy can report one) counts as no items.
  const text = new Proxy([tool({ d: { type: 'array' } })], { get: (t, k) => (k === 'length' ? '3000000' : /** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (t))[k]) });
  assert.deepEqual(augmentTools(text), []);
});

test('a revoked Proxy anywhere on the path is a TypeError naming the place', () => {
  /** @type {Cases} */
  const cases = [
    ['tools', () => revoked([])],
    ['tools', () => ({ tools: revoked([]) })],
    ['a tool', () => [{ name: 'ok' }, revoked()]],
    ['inputSchema', () => [{ name: 't', inputSchema: revoked() }]],
    ['a `type` list', () => [{ name: 't', inputSchema: { type: revoked([]), properties: {} } }]],
    ['inputSchema.properties', () => [{ name: 't', inputSchema: { type: 'object', properties: revoked() } }]],
    ['a property schema', () => [tool({ d: revoked() })]],
    ['a `type` list', () => [tool({ d: { type: revoked([]) } })]],
    ['an `anyOf`/`oneOf` list', () => [tool({ d: { anyOf: revoked([]) } })]],
    ['an `anyOf`/`oneOf` list', () => [tool({ d: { oneOf: revoked([]) } })]],
    ['a property schema', () => [tool({ d: { anyOf: [{ type: 'string' }, revoked()] } })]],
    ['inputSchema.required', () => [tool({ d: { type: 'array' } }, revoked([]))]],
  ];
  for (const [what, make] of cases) throwsTypeError(() => augmentTools(/** @type {never} */ (make())), unreadable(what));
  // A Proxy over a revoked Proxy too: Array.isArray rejects it before any of its traps runs.
  /** @type {string[]} */
  const traps = [];
  /** @type {ProxyHandler<object>} */
  const handler = { ownKeys: (_t) => (traps.push('ownKeys'), []), get: (_t, k) => (traps.push(`get ${String(k)}`), undefined) };
  throwsTypeError(() => augmentTools([/** @type {never} */ (new Proxy(revoked(), handler))]), unreadable('a tool'));
  throwsTypeError(() => augmentTools(/** @type {never} */ (new Proxy(revoked([]), handler))), unreadable('tools'));
  assert.deepEqual(traps, []);
});

test('a throwing getter or trap anywhere on the path is a TypeError naming the place', () => {
  /** @type {Cases} */
  const cases = [
    ['tools', () => throwingGetter([], 0)],
    ['tools', () => throwingGetter({ tools: [] }, 'nextCursor')],
    ['tools', () => new Proxy([{ name: 't' }], { get: (t, k) => (k === 'length' ? boom() : /** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (t))[k]) })],
    ['tools', () => new Proxy([], { ownKeys: boom })],
    ['a tool', () => [throwingGetter({ name: 't' }, 'title')]],
    ['inputSchema', () => [{ name: 't', inputSchema: throwingGetter({ properties: {} }, '$schema') }]],
    ['inputSchema.properties', () => [tool(throwingGetter({}, 'd'))]],
    ['a property schema', () => [tool({ d: throwingGetter({ type: 'array' }, 'description') })]],
    ['a `type` list', () => [tool({ d: { type: throwingGetter(['array'], 1) } })]],
    ['an `anyOf`/`oneOf` list', () => [tool({ d: { anyOf: throwingGetter([], 0) } })]],
    ['inputSchema.required', () => [tool({ d: { type: 'array' } }, throwingGetter(['d'], 1))]],
  ];
  for (const [what, make] of cases) throwsTypeError(() => augmentTools(/** @type {never} */ (make())), unreadable(what));
});

test('a getter that throws on its second read names the copy being made', () => {
  /** @type {<T>(object: T, key: PropertyKey, value: unknown) => T} */
  const once = (object, key, value) => {
    let reads = 0;
    return Object.defineProperty(object, key, { enumerable: true, get: () => (++reads === 1 ? value : boom()) });
  };
  throwsTypeError(() => augmentTools(once({ tools: [] }, 'nextCursor', 'p2')), unreadable('the tools/list result'));
  throwsTypeError(() => augmentTools([once(tool({ d: { type: 'array' } }), 'title', 'T')]), unreadable('a tool'));
  const schemaOnce = tool({ d: { type: 'array' } });
  once(schemaOnce.inputSchema, 'additionalProperties', false);
  throwsTypeError(() => augmentTools([schemaOnce]), unreadable('inputSchema'));
  throwsTypeError(() => augmentTools([tool({ d: once({ type: 'array' }, 'title', 'T') })]), unreadable('a property schema'));
  throwsTypeError(() => augmentTools([tool(once({ d: { type: 'array' } }, 'e', { type: 'string' }))]), unreadable('inputSchema.properties'));
});

test('what is not on the path is never read, and unreadable own values read as absent', () => {
  // Non-enumerable throwing getters are not listed, and reading them as absent is not an error.
  const schema = Object.defineProperty({ type: 'array' }, 'description', { get: boom });
  const [out] = /** @type {Tool[]} */ (augmentTools([tool({ d: schema })]));
  assert.equal(out.inputSchema.properties.d.description, note('d_uri'));
  // Deeper values (an `items` schema, a branch's own branches) are never checked.
  const deep = tool({ d: { type: 'array', items: revoked() }, e: { anyOf: [{ anyOf: revoked([]) }] } });
  assert.deepEqual(Object.keys(/** @type {Tool[]} */ (augmentTools([deep]))[0].inputSchema.properties), ['d', 'd_uri', 'e']);
});

/** @returns {never} */
function boom() {
  throw new Error('boom');
}
