// What every `ResultCache` keeps in JS around its WebAssembly core: the flow policy (the
// `flows` option, docs/SECURITY.md) and the `blocked` events of the flows it refused. The policy
// is applied by the integrations (js/tool-pipeline.mjs), which are JS, so neither it nor its
// events cross into the `.wasm`; checking it with `checkFlows` (js/flows.mjs) keeps its one
// rule in one place. The browser entry's `ResultCache` (js/src/browser.mjs) and the Node
// entry's (js/node.cjs, through the CommonJS copy pkg/cache-flows.cjs) both hold one.
// It also keeps the cache's consume-once records (`consumeOnce`, js/src/consume-once.mjs): the
// AI SDK integration's record that an approval was used, in the cache's own storage.
import { checkFlows } from '../flows.mjs';
import { consumeOnceOf } from './consume-once.mjs';

/** Where OpenTelemetry's API 1.x keeps what a host registered (js/telemetry.mjs reads it too). */
const OTEL_API_KEY = Symbol.for('opentelemetry.js.api.1');
/** Most recent writes whose sizes a cache remembers for telemetry (js/telemetry.mjs). */
const MAX_REMEMBERED_WRITES = 256;

/**
 * The observer the WebAssembly cache is given: the host's `onEvent`, and, when the host observes
 * events anyway or OpenTelemetry is registered, a tap remembering the size of recent writes
 * (`storedBytes(uri)`, for the `mcp_result_cache.stored.bytes` of a call's span). Neither: the
 * host's value as it was (the cache builds no events).
 * @param {unknown} onEvent
 */
function observer(onEvent) {
  /** @type {Map<string, number>} */
  const writes = new Map();
  const storedBytes = (/** @type {string} */ uri) => writes.get(uri);
  const otel = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis))[OTEL_API_KEY];
  if (typeof onEvent !== 'function' && (otel === null || typeof otel !== 'object')) return { onEvent, storedBytes };
  const tap = (/** @type {unknown} */ event) => {
    const e = /** @type {{ kind?: unknown, uri?: unknown, sizeBytes?: unknown }} */ (event);
    if (e !== null && typeof e === 'object' && e.kind === 'write' && typeof e.uri === 'string' && typeof e.sizeBytes === 'number') {
      writes.set(e.uri, e.sizeBytes);
      if (writes.size > MAX_REMEMBERED_WRITES) writes.delete(/** @type {string} */ (writes.keys().next().value));
    }
    if (typeof onEvent === 'function') onEvent.call(null, event);
  };
  return { onEvent: tap, storedBytes };
}

/**
 * The flow policy of a cache made with `options`, checked at once (a bad `flows` is a
 * `TypeError`, before any other option is looked at), the reporter of its refusals to the
 * `onEvent` observer of the same options, and the options to hand the WebAssembly constructor:
 * `onEvent` is read once, here, and that value is what the constructor reads too (a view of
 * `options` answering it; every other option is read from `options` itself, when the constructor
 * reads it). A getter of `options` that throws is a `TypeError` naming the option, as the
 * WebAssembly constructor says of the others.
 * @param {any} options the `ResultCache` constructor's
 */
export function cacheFlows(options) {
  const read = (/** @type {string} */ key) => {
    try {
      return options?.[key];
    } catch {
      throw new TypeError(`could not read \`${key}\` (a getter threw, or the object is a revoked Proxy)`);
    }
  };
  const flows = read('flows');
  checkFlows(flows, 'ResultCache');
  const onEvent = read('onEvent');
  const observed = observer(onEvent);
  const storage = read('storage');
  const dbName = read('dbName');
  const once = consumeOnceOf(storage, dbName);
  return {
    /** The `flows` option as given; `"any"` when absent. @type {import('../../pkg/web/mcp_result_cache.js').FlowPolicy} */
    flows: flows ?? 'any',
    /** What the WebAssembly constructor is given (the caller's options, checked there). @type {any} */
    options: options !== null && typeof options === 'object'
      ? new Proxy(options, {
        get: (target, key) => (key === 'onEvent' ? observed.onEvent : key === 'storage' ? storage : key === 'dbName' ? dbName : Reflect.get(target, key)),
      })
      : options,
    /**
     * `consumeOnce(kind, key, ttlMs)`: `true` the first time `key` is consumed within `ttlMs`,
     * `false` after, in the storage the cache resolved to (`kind`: its `storage` getter).
     */
    consumeOnce: once.consume,
    /** The size of a recent write (`uri` → bytes), when the cache observes its events. */
    storedBytes: observed.storedBytes,
    /** Closes what `consumeOnce` opened (an IndexedDB connection). */
    close: once.close,
    /**
     * Hands `onEvent` a new `blocked` event with the `from`, `to`, `toolName` and `uris` of
     * `flow` (a field that cannot be read is `undefined`). An observer that throws changes
     * nothing, as for every other event.
     * @param {any} flow
     */
    report(flow) {
      const get = (/** @type {string} */ key) => {
        try {
          return flow?.[key];
        } catch {
          return undefined;
        }
      };
      try {
        if (typeof onEvent === 'function') onEvent.call(null, { kind: 'blocked', from: get('from'), to: get('to'), toolName: get('toolName'), uris: get('uris') });
      } catch {
        // the observer's failure is not the caller's
      }
    },
  };
}
