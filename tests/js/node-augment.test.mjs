// augmentTools against the release package: `<name>_uri` siblings declared for servers that
// never heard of references, checked with a real JSON Schema validator (Ajv), and hostile input
// rejected with a TypeError, never a WebAssembly trap.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

import { augmentTools, ResultCache, matchGlob } from '../../pkg/node.mjs';

/**
 * A property schema of an augmented tool, as the assertions read it.
 * @typedef {{ type?: unknown, description: string, items?: unknown }} PropertySchema
 * A tool `augmentTools` answers, as the assertions read it (js/index.d.ts types it `McpTool`).
 * @typedef {{
 *   name: string, title?: string, annotations?: unknown,
 *   inputSchema: { $schema?: string, additionalProperties?: unknown, properties: Record<string, PropertySchema>, required?: unknown[] },
 * }} Tool
 * The `default` export of `ajv` and `ajv/dist/2020.js` (CommonJS: `module.exports` is the class).
 * @typedef {typeof import('ajv').default} AjvClass
 * @typedef {typeof import('ajv/dist/2020.js').default} Ajv2020Class
 */

const chartCreate = () => ({
  name: 'chart.create',
  title: 'Create a chart',
  description: 'Draws a chart from rows.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      title: { type: 'string', description: 'Chart title.' },
      data: { type: 'array', description: 'Rows to plot.', items: { type: 'object' } },
      style: { type: 'object', properties: { color: { type: 'string' } } },
    },
    required: ['title', 'data'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
});

/** A server built for references: already declares `data_uri`. */
const referenceAware = () => ({
  name: 'table.render',
  inputSchema: {
    type: 'object',
    properties: {
      data: { type: 'array', items: { type: 'object' } },
      data_uri: { type: 'string', description: 'Reference.' },
    },
    required: ['data'],
  },
});

const sampleTools = () => [
  chartCreate(),
  referenceAware(),
  { name: 'ping' },
  { name: 'weird', inputSchema: { type: 'array', items: { type: 'string' } } },
  { name: 'no-properties', inputSchema: { type: 'object' } },
];

const isTrap = (/** @type {unknown} */ error) => error instanceof WebAssembly.RuntimeError || !(error instanceof Error);

test('an array parameter gains a string `_uri` sibling right after it, and is no longer required', () => {
  const [chart] = /** @type {Tool[]} */ (augmentTools([chartCreate()]));
  const { properties, required } = chart.inputSchema;
  assert.deepEqual(Object.keys(properties), ['title', 'data', 'data_uri', 'style']);
  assert.equal(properties.data_uri.type, 'string');
  assert.match(properties.data_uri.description, /mcp\+cache:\/\//);
  assert.match(properties.data_uri.description, /`_cache_uri`/);
  assert.match(properties.data_uri.description, /`_cache_refs`/);
  assert.match(properties.data_uri.description, /JSON Pointer/);
  assert.deepEqual(required, ['title']);
  // The original description comes first, then the pointer to the sibling.
  assert.ok(properties.data.description.startsWith('Rows to plot. '), properties.data.description);
  assert.match(properties.data.description, /Or pass `data_uri` instead/);
  // Everything else is kept: other keys of the tool, of the schema and of the property.
  assert.equal(chart.name, 'chart.create');
  assert.equal(chart.title, 'Create a chart');
  assert.deepEqual(chart.annotations, { readOnlyHint: true });
  assert.equal(chart.inputSchema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.equal(chart.inputSchema.additionalProperties, false);
  assert.deepEqual(properties.data.items, { type: 'object' });
  assert.equal(properties.style.description, undefined, 'objects are left alone by default');
  assert.equal(properties.style_uri, undefined);
});

test('the input is never mutated, and tools without a usable schema come back as they are', () => {
  const tools = sampleTools();
  const before = structuredClone(tools);
  const out = /** @type {Tool[]} */ (augmentTools(tools));
  assert.deepEqual(tools, before);
  assert.notEqual(out, tools);
  assert.equal(out.length, tools.length);
  assert.notEqual(out[0], tools[0], 'an augmented tool is a copy');
  for (const i of [1, 2, 3, 4]) assert.equal(out[i], tools[i], `tool ${i} is returned as is`);
  assert.deepEqual(out[1], referenceAware(), 'an existing data_uri leaves the tool unchanged');
});

test('idempotent: augmenting an augmented list changes nothing', () => {
  for (const options of [undefined, { objects: true }]) {
    const once = /** @type {Tool[]} */ (augmentTools(sampleTools(), options));
    const snapshot = structuredClone(once);
    const twice = /** @type {Tool[]} */ (augmentTools(once, options));
    assert.deepEqual(twice, snapshot);
    assert.deepEqual(once, snapshot, 'augmenting again did not mutate the first result');
    twice.forEach((tool, i) => assert.equal(tool, once[i], 'nothing left to add: the same objects'));
  }
});

test('objects get a sibling only with { objects: true }', () => {
  const [plain] = /** @type {Tool[]} */ (augmentTools([chartCreate()]));
  const [withObjects] = /** @type {Tool[]} */ (augmentTools([chartCreate()], { objects: true }));
  assert.equal(plain.inputSchema.properties.style_uri, undefined);
  assert.deepEqual(Object.keys(withObjects.inputSchema.properties), ['title', 'data', 'data_uri', 'style', 'style_uri']);
  assert.equal(withObjects.inputSchema.properties.style_uri.type, 'string');
  assert.match(withObjects.inputSchema.properties.style.description, /^Or pass `style_uri` instead/);
  assert.deepEqual(augmentTools([chartCreate()], { objects: false }), [plain]);
});

test('which properties take an array: type, type lists, items, anyOf/oneOf branches', () => {
  const tool = {
    name: 't',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'array' },
        b: { type: ['array', 'null'] },
        c: { items: { type: 'number' } },
        d: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        e: { oneOf: [{ type: 'null' }, { type: 'array' }] },
        f: { type: 'string' },
        g: { type: 'integer' },
        h: true,
        series_uri: { type: 'array', items: { type: 'string' } },
        i: { anyOf: [{ anyOf: [{ type: 'array' }] }] },
      },
    },
  };
  const props = /** @type {Tool[]} */ (augmentTools([tool]))[0].inputSchema.properties;
  const added = Object.keys(props).filter((k) => !(k in tool.inputSchema.properties));
  assert.deepEqual(added, ['a_uri', 'b_uri', 'c_uri', 'd_uri', 'e_uri']);
  assert.equal(props.h, true);
  assert.equal(props.series_uri_uri, undefined, 'a reference parameter gets no sibling');
});

test('a whole tools/list result comes back in the same shape', () => {
  const result = { tools: [chartCreate(), { name: 'ping' }], nextCursor: 'page-2', _meta: { x: 1 } };
  const before = structuredClone(result);
  const out = /** @type {{ tools: Tool[], nextCursor?: string, _meta?: unknown }} */ (augmentTools(result));
  assert.deepEqual(result, before);
  assert.deepEqual(Object.keys(out), ['tools', 'nextCursor', '_meta']);
  assert.equal(out.nextCursor, 'page-2');
  assert.equal(out._meta, result._meta);
  assert.deepEqual(out.tools, augmentTools(result.tools));
});

test('keys such as __proto__ stay plain data', () => {
  const tool = JSON.parse(`{"name":"t","inputSchema":{"type":"object","properties":{
    "__proto__":{"type":"array","description":"proto rows"},"x":{"type":"string"}},"required":["__proto__"]}}`);
  const props = /** @type {Tool[]} */ (augmentTools([tool]))[0].inputSchema.properties;
  assert.equal(Object.getPrototypeOf(props), Object.prototype);
  assert.deepEqual(Object.keys(props), ['__proto__', '__proto___uri', 'x']);
  assert.equal(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(props, '__proto__')).value.type, 'array');
  assert.equal(/** @type {{ type?: unknown }} */ ({}).type, undefined, 'Object.prototype untouched');
});

test('caller keys are copied exactly; a lone-surrogate name gets no sibling; odd required items stay', () => {
  const lone = '\uD800rows';
  const tool = {
    name: 't',
    inputSchema: {
      type: 'object',
      properties: { [lone]: { type: 'array' }, '\uFFFDrows': { type: 'string' }, data: { type: 'array' } },
      required: [lone, 7, 'data', null],
    },
  };
  const schema = /** @type {Tool[]} */ (augmentTools([tool]))[0].inputSchema;
  assert.deepEqual(Object.keys(schema.properties), [lone, '\uFFFDrows', 'data', 'data_uri']);
  assert.deepEqual(schema.required, [lone, 7, null]);
});

test('Ajv: both forms validate, a wrong type or an undeclared _uri does not', () => {
  const augmented = /** @type {Tool[]} */ (augmentTools(sampleTools(), { objects: true }));
  const ajv = new (/** @type {AjvClass} */ (/** @type {unknown} */ (Ajv)))({ strict: false });
  for (const tool of augmented) {
    if (tool.inputSchema) ajv.compile(tool.inputSchema); // every schema stays a valid schema
  }
  const validate = ajv.compile(augmented[0].inputSchema);
  const ok = (/** @type {unknown} */ args) => assert.equal(validate(args), true, `${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`);
  const bad = (/** @type {unknown} */ args) => assert.equal(validate(args), false, `${JSON.stringify(args)} should be rejected`);
  ok({ title: 'CPU', data_uri: 'mcp+cache://c/AAAAAAAAAAA' });
  ok({ title: 'CPU', data_uri: 'mcp+cache://c/AAAAAAAAAAA#/rows' });
  ok({ title: 'CPU', data: [{ a: 1 }] });
  ok({ title: 'CPU', style_uri: 'mcp+cache://c/BBBBBBBBBBB', data: [] });
  bad({ title: 'CPU', data_uri: 3 });
  bad({ title: 'CPU', data: [{ a: 1 }], foo_uri: 'mcp+cache://c/AAAAAAAAAAA' });
  bad({ data_uri: 'mcp+cache://c/AAAAAAAAAAA' }); // title is still required

  // The original schema rejects the reference form: that is why the sibling is needed.
  const original = new (/** @type {AjvClass} */ (/** @type {unknown} */ (Ajv)))({ strict: false }).compile(chartCreate().inputSchema);
  assert.equal(original({ title: 'CPU', data_uri: 'mcp+cache://c/AAAAAAAAAAA' }), false);
});

test('Ajv 2020-12: prefixItems counts as an array', () => {
  const tool = {
    name: 'pair',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { prefixItems: [{ type: 'number' }, { type: 'number' }] } },
      required: ['pair'],
      additionalProperties: false,
    },
  };
  const [out] = /** @type {Tool[]} */ (augmentTools([tool]));
  const validate = new (/** @type {Ajv2020Class} */ (/** @type {unknown} */ (Ajv2020)))({ strict: false }).compile(out.inputSchema);
  assert.equal(validate({ pair_uri: 'mcp+cache://c/AAAAAAAAAAA' }), true);
  assert.equal(validate({ pair: [1, 2] }), true);
  assert.equal(validate({ pair_uri: false }), false);
});

test('host round trip: the model calls with data_uri, the server gets only declared parameters', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const rows = Array.from({ length: 240 }, (_, i) => ({ t: i, value: i % 7 }));
  const uri = await cache.cacheToolResult({ payload: { rows }, convId: 'conv', threshold: 0 });
  assert.equal(typeof uri, 'string');

  const ajv = new (/** @type {AjvClass} */ (/** @type {unknown} */ (Ajv)))({ strict: false });
  const [augmented] = /** @type {Tool[]} */ (augmentTools([chartCreate()]));
  const modelArgs = { title: 'CPU', data_uri: `${uri}#/rows` };
  assert.equal(ajv.compile(augmented.inputSchema)(modelArgs), true, 'the model may send the reference');

  const before = await cache.beforeToolCall('chart.create', modelArgs, { convId: 'conv' });
  assert.equal(before.dispatch, true);
  assert.deepEqual(before.args, { title: 'CPU', data: rows });
  const serverSchema = ajv.compile(chartCreate().inputSchema);
  assert.equal(serverSchema(before.args), true, ajv.errorsText(serverSchema.errors));
});

test('bad arguments are TypeErrors', () => {
  // The values outside augmentTools' declared types are given on purpose (cast to `never`).
  for (const tools of [undefined, null, 'tools', 42, {}, { tools: 'x' }, { tools: {} }, { length: 3e9 }]) {
    assert.throws(() => augmentTools(/** @type {never} */ (tools)), TypeError, `tools = ${JSON.stringify(tools)}`);
  }
  for (const options of [5, 'objects', { objects: 'yes' }, { objects: 1 }]) {
    assert.throws(() => augmentTools([], /** @type {never} */ (options)), TypeError, `options = ${JSON.stringify(options)}`);
  }
  assert.deepEqual(augmentTools([], null), []);
  assert.throws(() => augmentTools(new Array(2 ** 32 - 1)), TypeError);
});

test('hostile values are TypeErrors, never traps, and the module keeps working', () => {
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };
  const throwing = (/** @type {string} */ key) => Object.defineProperty({}, key, { enumerable: true, get() { throw new Error('boom'); } });
  const withSchema = (/** @type {unknown} */ inputSchema) => [{ name: 't', inputSchema }];
  const withProps = (/** @type {unknown} */ properties) => withSchema({ type: 'object', properties });
  const cases = {
    'revoked tools': () => [revoked()],
    'revoked tools array': revoked,
    'revoked result.tools': () => ({ tools: revoked() }),
    'revoked tool': () => [chartCreate(), revoked()],
    'revoked inputSchema': () => withSchema(revoked()),
    'revoked properties': () => withProps(revoked()),
    'revoked property schema': () => withProps({ data: revoked() }),
    'revoked type list': () => withProps({ data: { type: revoked() } }),
    'revoked anyOf': () => withProps({ data: { anyOf: revoked() } }),
    'revoked anyOf branch': () => withProps({ data: { anyOf: [revoked()] } }),
    'revoked required': () => withSchema({ type: 'object', properties: { data: { type: 'array' } }, required: revoked() }),
    'throwing inputSchema getter': () => [throwing('inputSchema')],
    'throwing properties getter': () => withSchema(throwing('properties')),
    'throwing item getter': () => [Object.defineProperty([], 0, { enumerable: true, get() { throw new Error('boom'); } })],
    'throwing proxy get trap': () => new Proxy([{ name: 't' }], { get() { throw new Error('trap'); } }),
  };
  for (const [label, make] of Object.entries(cases)) {
    let error;
    try {
      augmentTools(/** @type {never} */ (make())); // hostile on purpose
    } catch (e) {
      error = e;
    }
    assert.ok(error, `${label}: should throw`);
    assert.ok(!isTrap(error), `${label}: trapped with ${error}`);
    assert.ok(error instanceof TypeError, `${label}: ${error}`);
  }
  assert.throws(() => augmentTools([], revoked()), TypeError, 'revoked options');
  assert.throws(() => augmentTools([], throwing('objects')), TypeError, 'throwing options getter');

  // Still fully working afterwards.
  for (let i = 0; i < 2000; i++) {
    try { augmentTools(withSchema(revoked())); } catch { /* TypeError */ }
  }
  assert.equal(/** @type {Tool[]} */ (augmentTools([chartCreate()]))[0].inputSchema.properties.data_uri.type, 'string');
  assert.equal(matchGlob('a.*', 'a.b'), true);
});

test('an array whose length cannot be read is a TypeError, not an empty list', () => {
  const throwingLength = () => new Proxy([{ name: 't' }], {
    get: (target, key) => (key === 'length' ? (() => { throw new Error('length'); })() : /** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (target))[key]),
  });
  assert.throws(() => augmentTools(throwingLength()), TypeError);
  assert.throws(() => augmentTools({ tools: throwingLength() }), TypeError);
  const required = throwingLength();
  assert.throws(
    () => augmentTools([{ name: 't', inputSchema: { type: 'object', properties: { d: { type: 'array' } }, required } }]),
    TypeError,
  );
});
