// The arguments of `cacheRoute` (js/cache-route.mjs), checked when the route is made, before
// any request: a wrong cache or `authorize` is a TypeError at startup, not a 500 per request.

/**
 * @typedef {{
 *   lookup(uri: string, options: { convId: string }): Promise<{ status: string, payload?: unknown, cause?: string, sourceToolName?: string, sourceServer?: string }>,
 *   entries(options: { convId: string }): Promise<Record<string, unknown>[]>,
 * }} RouteCache
 * @typedef {(request: Request, scope: { convId: string, uri: string | null }) => unknown} Authorize
 * @typedef {(request: Request) => unknown} ConvIdOf
 */

/**
 * `cacheRoute`'s arguments, checked: a `TypeError` when `cache` is not a cache, `authorize` not a
 * function, or `convId` given and not a function.
 * @param {unknown} cache
 * @param {unknown} options
 * @returns {{ store: RouteCache, allowed: Authorize, conversation: ConvIdOf | undefined }}
 */
export function routeArgs(cache, options) {
  const fn = (/** @type {unknown} */ value, /** @type {string} */ key) => typeof (/** @type {Record<string, unknown>} */ (value))[key] === 'function';
  if (!cache || typeof cache !== 'object' || !fn(cache, 'lookup') || !fn(cache, 'entries')) throw new TypeError('cacheRoute: cache must be a ResultCache');
  if (!options || typeof options !== 'object' || !fn(options, 'authorize')) throw new TypeError('cacheRoute: options.authorize must be a function');
  const { authorize, convId } = /** @type {{ authorize: Authorize, convId?: unknown }} */ (options);
  if (convId !== undefined && typeof convId !== 'function') throw new TypeError('cacheRoute: options.convId must be a function');
  return { store: /** @type {RouteCache} */ (cache), allowed: authorize, conversation: /** @type {ConvIdOf | undefined} */ (convId) };
}

