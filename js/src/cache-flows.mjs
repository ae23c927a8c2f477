// What every `ResultCache` keeps in JS around its WebAssembly core: the flow policy (the
// `flows` option, docs/SECURITY.md) and the `blocked` events of the flows it refused. The policy
// is applied by the integrations (js/tool-pipeline.mjs), which are JS, so neither it nor its
// events cross into the `.wasm`; checking it with `checkFlows` (js/flows.mjs) keeps its one
// rule in one place. The browser entry's `ResultCache` (js/src/browser.mjs) and the Node
// entry's (js/node.cjs, through the CommonJS copy pkg/cache-flows.cjs) both hold one.
import { checkFlows } from '../flows.mjs';

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
  return {
    /** The `flows` option as given; `"any"` when absent. @type {import('../../pkg/web/mcp_result_cache.js').FlowPolicy} */
    flows: flows ?? 'any',
    /** What the WebAssembly constructor is given (the caller's options, checked there). @type {any} */
    options: options !== null && typeof options === 'object'
      ? new Proxy(options, { get: (target, key) => (key === 'onEvent' ? onEvent : Reflect.get(target, key)) })
      : options,
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
