// One page of an array, in the shape of `cache_read`'s answer for an array (js/readback.mjs:
// `{ uri, total, offset, items, next_offset? }`) without its character budget: what `cacheRoute`
// answers for `offset`/`limit`, and what `useCachedResult` holds for them.

/**
 * @typedef {{ uri: string, total: number, offset: number, items: unknown[], next_offset?: number }} Page
 */

// A page is at most this many items (a UI asks for what it shows): the route answers 400 above
// it, and the hooks refuse it while rendering, whichever the source.
export const MAX_PAGE_LIMIT = 10_000;
// Items per page when only `offset` is given.
export const DEFAULT_PAGE_LIMIT = 100;

/**
 * Items `offset` to `offset + limit` of `items` (fewer at the end); `next_offset` where the
 * next page starts, absent on the last. A `RangeError` when `offset` is past the end.
 * @param {string} uri @param {readonly unknown[]} items @param {number} offset @param {number} limit
 * @returns {Page}
 */
export function pageOf(uri, items, offset, limit) {
  const total = items.length;
  if (offset > total) throw new RangeError(`offset ${offset} is past the end (${total})`);
  const end = Math.min(total, offset + limit);
  /** @type {Page} */
  const page = { uri, total, offset, items: items.slice(offset, end).map((item) => (item === undefined ? null : item)) };
  if (end < total) page.next_offset = end;
  return page;
}
