// OpenTelemetry for wrapped tool calls, through `@opentelemetry/api` only and without importing
// it: the API keeps what a host registered (tracer provider, meter provider, context manager,
// propagator) on one global, `globalThis[Symbol.for("opentelemetry.js.api.1")]`, and every copy
// of the API of major version 1 reads it there; so does this module. A bundler never sees an
// import of it to resolve, and with nothing registered a call costs one property read: no span,
// no object allocated. docs/TELEMETRY.md lists every span, attribute and metric.
//
// Never recorded: a payload, an argument's value, a result's text. Only names (tools, servers),
// references (opaque `mcp+cache://` ids), counts, sizes and decisions.
import { META_URIS_KEY, hasCacheScheme } from './protocol.mjs';

/** Where `@opentelemetry/api` 1.x keeps what a host registered. */
const API_KEY = Symbol.for('opentelemetry.js.api.1');
/** The context key of the active span (`@opentelemetry/api`'s `createContextKey("OpenTelemetry Context Key SPAN")`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
/** The instrumentation scope. */
const SCOPE = 'mcp-result-cache';
/** `SpanKind.CLIENT`, `SpanStatusCode.ERROR` of `@opentelemetry/api`. */
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;
/** The guardrail name of the flow policy (GenAI security conventions' `gen_ai.guardian.name`). */
const GUARDIAN = 'mcp-result-cache flows';

/**
 * The slice of `@opentelemetry/api` this module uses, as a registered SDK provides it.
 * @typedef {{ setAttribute(key: string, value: string | number | boolean): unknown, setStatus(status: { code: number, message?: string }): unknown, recordException(error: unknown): unknown, end(): void }} Span
 * @typedef {{ startSpan(name: string, options: object, context?: Context): Span }} Tracer
 * @typedef {{ getValue(key: symbol): unknown, setValue(key: symbol, value: unknown): Context }} Context
 * @typedef {{ active(): Context, with<T>(context: Context, fn: () => T): T }} ContextManager
 * @typedef {{ inject(context: Context, carrier: Record<string, unknown>, setter: { set(carrier: Record<string, unknown>, key: string, value: string): void }): void }} Propagator
 * @typedef {{ add(value: number, attributes?: Record<string, string>): void }} Counter
 * @typedef {{ record(value: number, attributes?: Record<string, string>): void }} Histogram
 * @typedef {{ createCounter(name: string, options?: object): Counter, createHistogram(name: string, options?: object): Histogram }} Meter
 * @typedef {{ trace?: { getTracer(name: string): Tracer }, metrics?: { getMeter(name: string): Meter }, context?: ContextManager, propagation?: Propagator }} RegisteredApi
 */
/** What the pipeline reports of one call (js/tool-pipeline.mjs `CallFacts`). @typedef {import('./tool-pipeline.mjs').CallFacts} CallFacts */

/** The registered API, or `null` when nothing is registered. @returns {RegisteredApi | null} */
function registered() {
  const api = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis))[API_KEY];
  return api !== null && typeof api === 'object' ? /** @type {RegisteredApi} */ (api) : null;
}

/** The tracer and instruments of the current providers, made again when a provider changes. */
const made = {
  /** @type {unknown} */ traceProvider: null,
  /** @type {Tracer | null} */ tracer: null,
  /** @type {unknown} */ meterProvider: null,
  /** @type {{ bytes: Counter, chars: Counter, lookups: Counter, duration: Histogram } | null} */ instruments: null,
};

/** @param {RegisteredApi} api */
function tracerOf(api) {
  const provider = api.trace;
  if (!provider || typeof provider.getTracer !== 'function') return null;
  if (made.traceProvider !== provider) {
    made.tracer = provider.getTracer(SCOPE);
    made.traceProvider = provider;
  }
  return made.tracer;
}

/** @param {RegisteredApi} api */
function instrumentsOf(api) {
  const provider = api.metrics;
  if (!provider || typeof provider.getMeter !== 'function') return null;
  if (made.meterProvider !== provider) {
    const meter = provider.getMeter(SCOPE);
    made.instruments = {
      bytes: meter.createCounter('mcp_result_cache.stored.size', { unit: 'By', description: 'Bytes of tool results stored in the cache' }),
      chars: meter.createCounter('mcp_result_cache.prompt.chars_saved', { unit: '{char}', description: 'Characters of tool results kept out of the model prompt' }),
      lookups: meter.createCounter('mcp_result_cache.lookups', { unit: '{lookup}', description: 'References resolved, by outcome' }),
      duration: meter.createHistogram('mcp_result_cache.operation.duration', { unit: 's', description: 'Duration of wrapped tool calls, pipeline included' }),
    };
    made.meterProvider = provider;
  }
  return made.instruments;
}

/**
 * `fn`, to run later in the OpenTelemetry context active now (the span of the call that made it
 * its parent), whatever context calls it: an async generator's body runs in the context of
 * whoever calls its `next()`. `fn` itself when nothing is registered.
 * @template {(...args: never[]) => unknown} F
 * @param {F} fn
 * @returns {F}
 */
export function boundToActive(fn) {
  const contexts = registered()?.context;
  if (!contexts || typeof contexts.active !== 'function' || typeof contexts.with !== 'function') return fn;
  const active = contexts.active();
  return /** @type {F} */ (/** @type {unknown} */ ((/** @type {Parameters<F>} */ ...args) => contexts.with(active, () => fn(...args))));
}

/**
 * The carrier `_meta` of an outgoing request with the active context's trace context
 * (`traceparent`, `tracestate`, `baggage`, whatever the registered propagator writes) added,
 * never replacing a key the caller set, and no `traceparent`/`tracestate` beside a caller's own
 * one of the pair; `meta` itself when there is nothing to add.
 * @param {unknown} meta the request's `params._meta`
 * @returns {unknown}
 */
export function withTraceContext(meta) {
  const api = registered();
  const propagator = api?.propagation;
  const contexts = api?.context;
  if (!propagator || typeof propagator.inject !== 'function' || !contexts || typeof contexts.active !== 'function') return meta;
  /** @type {Record<string, unknown>} */
  const carrier = {};
  propagator.inject(contexts.active(), carrier, { set: (c, key, value) => void (c[key] = value) });
  const own = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? /** @type {Record<string, unknown>} */ (meta) : {};
  // `traceparent` and `tracestate` are one pair (W3C Trace Context): a caller that set either
  // keeps its own trace, and neither of the active context's is added beside it.
  if (Object.hasOwn(own, 'traceparent') || Object.hasOwn(own, 'tracestate')) {
    delete carrier.traceparent;
    delete carrier.tracestate;
  }
  if (Object.keys(carrier).length === 0) return meta;
  return { ...carrier, ...own };
}

/** Characters of what a model reads of a value: text blocks of a `CallToolResult`, else its JSON. */
function shownChars(/** @type {unknown} */ value) {
  if (typeof value === 'string') return value.length;
  if (value !== null && typeof value === 'object' && Array.isArray(/** @type {{ content?: unknown }} */ (value).content)) {
    let chars = 0;
    for (const block of /** @type {unknown[]} */ (/** @type {{ content: unknown[] }} */ (value).content)) {
      const text = block !== null && typeof block === 'object' ? /** @type {{ text?: unknown }} */ (block).text : undefined;
      if (typeof text === 'string') chars += text.length;
    }
    return chars;
  }
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The references a value names as minted: `_meta["mcp-result-cache/uris"]`, or `_cache_uri`. */
function namedOf(/** @type {unknown} */ value) {
  if (value === null || typeof value !== 'object') return [];
  const v = /** @type {{ _meta?: unknown, _cache_uri?: unknown }} */ (value);
  const listed = v._meta !== null && typeof v._meta === 'object' ? /** @type {Record<string, unknown>} */ (v._meta)[META_URIS_KEY] : undefined;
  if (Array.isArray(listed)) return listed.filter(hasCacheScheme);
  return hasCacheScheme(v._cache_uri) ? [v._cache_uri] : [];
}

/**
 * The references the cache minted for a call: those the visible value names and the server's
 * own result did not (a server's `_meta` passes through a result the cache did not store: its
 * words are not the cache's).
 * @param {unknown} raw @param {unknown} visible
 */
function mintedOf(raw, visible) {
  const named = namedOf(visible);
  if (named.length === 0 || raw === undefined) return named;
  const servers = new Set(namedOf(raw));
  return named.filter((uri) => !servers.has(uri));
}

/**
 * The attributes of a finished call (none of them a payload, argument value or result text).
 * @param {CallFacts} facts
 * @param {unknown} raw the tool's raw result (`undefined` when not dispatched)
 * @param {unknown} visible what the model is shown
 * @param {(uri: string) => number | undefined} bytesOf the stored size of a reference, when the cache reported it
 */
function factsOf(facts, raw, visible, bytesOf) {
  const minted = facts.passedThrough ? [] : mintedOf(raw, visible);
  // Known only when the cache reported every write (the Node entry's caches do; see docs/TELEMETRY.md).
  /** @type {number | undefined} */
  let bytes = 0;
  for (const uri of minted) {
    const size = bytesOf(uri);
    bytes = size === undefined || bytes === undefined ? undefined : bytes + size;
  }
  const resultChars = raw === undefined ? 0 : shownChars(raw);
  const shown = shownChars(visible);
  return { minted, bytes, resultChars, shown, lookups: facts.lookups ?? { hit: 0, miss: 0, stale: 0 } };
}

/** The GenAI security conventions' guardrail attributes of a flow decision that refused or asked. */
function guardrail(/** @type {Span} */ span, /** @type {string | undefined} */ flow) {
  if (flow !== 'deny' && flow !== 'declined' && flow !== 'approved') return;
  span.setAttribute('gen_ai.security.target.type', 'tool_call');
  span.setAttribute('gen_ai.guardian.name', GUARDIAN);
  span.setAttribute('gen_ai.security.decision.type', flow === 'approved' ? 'allow' : 'deny');
  span.setAttribute('gen_ai.security.decision.reason', flow === 'deny' ? 'reference_flow_denied' : flow === 'declined' ? 'reference_flow_declined' : 'reference_flow_approved');
}

/** `error.type` of a visible value: `tool_error` for an `isError` result. */
const isErrorResult = (/** @type {unknown} */ v) => v !== null && typeof v === 'object' && /** @type {{ isError?: unknown }} */ (v).isError === true;

/**
 * One wrapped tool call: `call(facts, onRaw)` runs the pipeline (it fills `facts` and hands the
 * raw result to `onRaw`) inside a `tools/call {tool}` span of kind CLIENT, child of the active
 * span, with the cache's facts as `mcp_result_cache.*` attributes, and records the metrics.
 * With no tracer and no meter registered, it is `call` alone.
 * @template T
 * @param {string} toolName
 * @param {{ bytesOf?: (uri: string) => number | undefined }} cache what the cache reports of its writes
 * @param {(facts: CallFacts | undefined, onRaw: ((raw: unknown) => void) | undefined) => Promise<T>} call
 * @param {string} [method] the MCP method (`tasks/result` for a task's final result)
 * @returns {Promise<T>}
 */
export async function instrumentToolCall(toolName, cache, call, method = 'tools/call') {
  const api = registered();
  if (!api) return call(undefined, undefined);
  const tracer = tracerOf(api);
  const instruments = instrumentsOf(api);
  if (!tracer && !instruments) return call(undefined, undefined);
  /** @type {CallFacts} */
  const facts = {};
  /** @type {unknown} */
  let raw;
  const onRaw = (/** @type {unknown} */ value) => void (raw = value);
  const contexts = api.context && typeof api.context.active === 'function' ? api.context : null;
  const parent = contexts?.active();
  const span = tracer?.startSpan(method === 'tools/call' ? `tools/call ${toolName}` : method, {
    kind: SPAN_KIND_CLIENT,
    attributes: { 'mcp.method.name': method, 'gen_ai.tool.name': toolName, 'gen_ai.operation.name': 'execute_tool' },
  }, parent);
  const started = performance.now();
  const run = () => call(facts, onRaw);
  try {
    const visible = await (span && contexts && parent ? contexts.with(parent.setValue(SPAN_KEY, span), run) : run());
    finish(span, instruments, facts, raw, visible, cache, started, toolName);
    return visible;
  } catch (error) {
    // A JSON-RPC error (the SDK's `McpError`: a code from -32768 to -32000) is typed by its code,
    // as the MCP conventions ask: `-32602` tells invalid params from `-32001`, a timeout. Else the
    // name: an HTTP status (the transports' errors) or a `DOMException`'s legacy code is no such code.
    const code = Number(/** @type {{ code?: unknown } | null} */ (error)?.code);
    const rpc = Number.isInteger(code) && code >= -32768 && code <= -32000 ? String(code) : undefined;
    const type = rpc ?? (error instanceof Error && error.name ? error.name : 'Error');
    if (span) {
      span.setAttribute('error.type', type);
      if (rpc !== undefined) span.setAttribute('rpc.response.status_code', rpc);
      span.setStatus({ code: STATUS_ERROR });
      span.end();
    }
    instruments?.duration.record((performance.now() - started) / 1000, { 'gen_ai.tool.name': toolName, 'error.type': type });
    throw error;
  }
}

/**
 * Ends the span of a call that answered `visible` and records its metrics.
 * @param {Span | undefined} span
 * @param {{ bytes: Counter, chars: Counter, lookups: Counter, duration: Histogram } | null} instruments
 * @param {CallFacts} facts
 * @param {unknown} raw
 * @param {unknown} visible
 * @param {{ bytesOf?: (uri: string) => number | undefined }} cache
 * @param {number} started
 * @param {string} toolName
 */
function finish(span, instruments, facts, raw, visible, cache, started, toolName) {
  const f = factsOf(facts, raw, visible, (uri) => cache.bytesOf?.(uri));
  // A failed tool answers a result (`isError`), not a JSON-RPC error: an error all the same.
  const failed = isErrorResult(visible) || isErrorResult(raw);
  if (span) {
    const set = (/** @type {string} */ key, /** @type {string | number | boolean | undefined} */ value) => {
      if (value !== undefined) span.setAttribute(`mcp_result_cache.${key}`, value);
    };
    set('task', facts.task === true);
    set('stored', f.minted.length > 0);
    set('reference', f.minted[0]);
    set('references.minted', f.minted.length);
    set('stored.bytes', f.minted.length > 0 ? f.bytes : undefined);
    set('result.chars', raw === undefined ? undefined : f.resultChars);
    set('shown.chars', f.shown);
    set('references.resolved', facts.references ?? 0);
    set('lookup.hit', f.lookups.hit);
    set('lookup.miss', f.lookups.miss);
    set('lookup.stale', f.lookups.stale);
    set('reused', facts.reused === true);
    set('flow.decision', facts.flow);
    set('blocked', facts.blocked);
    guardrail(span, facts.flow);
    if (failed) {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: STATUS_ERROR });
    }
    span.end();
  }
  // A task answer is not a result: it stays out of the metrics (its final result counts).
  if (!instruments || facts.passedThrough) return;
  if (f.bytes !== undefined && f.bytes > 0) instruments.bytes.add(f.bytes);
  if (raw !== undefined && f.resultChars > f.shown) instruments.chars.add(f.resultChars - f.shown);
  for (const outcome of /** @type {const} */ (['hit', 'miss', 'stale'])) {
    if (f.lookups[outcome] > 0) instruments.lookups.add(f.lookups[outcome], { 'mcp_result_cache.lookup.outcome': outcome });
  }
  instruments.duration.record((performance.now() - started) / 1000, failed ? { 'gen_ai.tool.name': toolName, 'error.type': 'tool_error' } : { 'gen_ai.tool.name': toolName });
}
