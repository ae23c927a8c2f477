// `cacheRoute(cache, { authorize, convId? })`: a web-standard `(Request) => Promise<Response>`
// handler (Next.js route handlers, Hono, `node:http` through a small adapter) that lets the
// page read what a server stored: one entry's JSON (or a part of it, or a page of it), or a
// conversation's entries' metadata. Plain JS over the cache's public methods (`lookup`,
// `entries`): payloads never enter the `.wasm`. The reference grammar is the cache's own
// (`parseCacheUri`, given by the entry that exports the route: js/node.cjs), never a second one
// written here. Node only (docs/REACT.md, "The route").
import { CACHE_URI_SCHEME, hasCacheScheme } from './protocol.mjs';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, pageOf } from './page.mjs';
import { routeArgs } from './route-args.mjs';
import { readingArguments } from './argument-reads.mjs';

/**
 * @typedef {import('./route-args.mjs').RouteCache} RouteCache
 * @typedef {import('./route-args.mjs').ConvIdOf} ConvIdOf
 * @typedef {(uri: unknown) => unknown} ParseCacheUri the package's `parseCacheUri`: `null` for what is not a well-formed reference
 */

// Longer than any reference the cache accepts (128 characters, a pointer of at most 2 048 bytes).
const MAX_URI_CHARS = 8_300;
// The metadata of an entry the listing answers (`lastUsedAt` changes with every read, so it is
// left out: the list's ETag changes only when the list does).
const LISTED = ['uri', 'sourceToolName', 'sourceServer', 'addedAt', 'sizeBytes', 'staleCause', 'derivedFrom'];

/** An error answer: its status and a body naming only what was wrong, never payload data. */
class Refusal {
  /** @param {number} status @param {string} error @param {Record<string, unknown>} [detail] */
  constructor(status, error, detail = {}) {
    this.status = status;
    this.body = { error, ...detail };
  }
}
/** @type {(message: string) => never} */
const malformed = (message) => {
  throw new Refusal(400, 'bad_request', { message });
};

/**
 * An ETag for `text` (what was asked and answered, never a secret): two FNV-1a hashes of its
 * UTF-16 units with different offsets (64 bits), and its length.
 */
function tagOf(/** @type {string} */ text) {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
    b = Math.imul(b ^ text.charCodeAt(i), 0x01000193);
  }
  return `"${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}-${text.length.toString(36)}"`;
}

/** Whether `If-None-Match` of `request` names `etag` (or `*`). */
function notModified(/** @type {Request} */ request, /** @type {string} */ etag) {
  const header = request.headers.get('if-none-match');
  if (header === null) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** A JSON answer with the headers every answer of the route carries. */
function json(/** @type {number} */ status, /** @type {unknown} */ body, /** @type {Record<string, string>} */ headers = {}) {
  return new Response(status === 304 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private', 'x-content-type-options': 'nosniff', ...headers },
  });
}

/** A count from the query: absent → `fallback`; otherwise a whole number from `min` to `max`. */
function count(/** @type {URLSearchParams} */ query, /** @type {string} */ key, /** @type {number} */ fallback, /** @type {number} */ min, /** @type {number} */ max) {
  const text = query.get(key);
  if (text === null) return fallback;
  if (!/^[0-9]{1,16}$/.test(text) || Number(text) < min || Number(text) > max) malformed(`${key} must be a whole number from ${min} to ${max}`);
  return Number(text);
}

/** The conversation id as the cache takes it (a string, `""` too, or a number as its `String`). */
function convIdOf(/** @type {unknown} */ value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return malformed('no conversation: pass convId');
}

/** What the request asks for: the conversation, the reference (or `null` for the list), a page. */
async function readRequest(/** @type {Request} */ request, /** @type {ConvIdOf | undefined} */ conversation, /** @type {ParseCacheUri} */ parse) {
  const query = new URL(request.url).searchParams;
  const uri = query.get('uri');
  if (uri !== null && (!hasCacheScheme(uri) || uri.length > MAX_URI_CHARS || /[\p{Cc}\p{Cs}]/u.test(uri))) {
    malformed('uri must be a cache reference (URL-encoded, its # as %23)');
  }
  // What the cache would only answer as a miss (no token, a fragment that is no JSON Pointer, a
  // pointer over its bound, a path): the request's fault, not a missing entry.
  if (uri !== null && parse(uri) === null) {
    malformed(`uri is not a well-formed cache reference: ${CACHE_URI_SCHEME}<conversation>/<token>, optionally #<JSON Pointer> (its # as %23)`);
  }
  const paged = query.has('offset') || query.has('limit');
  if (paged && uri === null) malformed('offset and limit page an entry: pass uri');
  const page = paged ? { offset: count(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER), limit: count(query, 'limit', DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT) } : null;
  const convId = convIdOf(conversation ? await conversation(request) : query.get('convId'));
  return { convId, uri, page };
}

/** The answer for one entry: its JSON (unwrapped; a pointer selects), or a page of it. */
async function entryAnswer(/** @type {RouteCache} */ cache, /** @type {Request} */ request, /** @type {string} */ convId, /** @type {string} */ uri, /** @type {{ offset: number, limit: number } | null} */ page) {
  // The reference was checked above (`parse`): whatever the lookup throws now is the storage's
  // failure (a client's `TypeError` too, as `fetch failed`), a 500, never the request's fault.
  const outcome = await cache.lookup(uri, { convId });
  if (outcome.status === 'stale') {
    const tool = outcome.sourceToolName ?? '';
    throw new Refusal(410, 'stale', {
      uri, cause: outcome.cause, sourceToolName: tool, ...(outcome.sourceServer === undefined ? {} : { sourceServer: outcome.sourceServer }),
      message: `the entry is stale (invalidated by ${outcome.cause}): call ${tool} again for fresh data`,
    });
  }
  // A miss and another conversation's entry answer the same (no oracle for references).
  if (outcome.status !== 'hit') throw new Refusal(404, 'not_found');
  // A request refused without the tag is refused with it too: 304 answers only what a 200 would.
  if (page && !Array.isArray(outcome.payload)) malformed('offset and limit page an array; this entry (or the part the pointer selects) is not one');
  const items = /** @type {unknown[]} */ (outcome.payload);
  if (page && page.offset > items.length) malformed(`offset ${page.offset} is past the end (${items.length})`);
  const etag = tagOf(JSON.stringify([uri, page?.offset ?? null, page?.limit ?? null]));
  if (notModified(request, etag)) return json(304, null, { etag });
  if (!page) return json(200, outcome.payload === undefined ? null : outcome.payload, { etag });
  return json(200, pageOf(uri, items, page.offset, page.limit), { etag });
}

/** The answer for a conversation's list: its entries' metadata, oldest first, no payload. */
async function listAnswer(/** @type {RouteCache} */ cache, /** @type {Request} */ request, /** @type {string} */ convId) {
  const rows = await cache.entries({ convId });
  const entries = rows.map((row) => Object.fromEntries(LISTED.filter((key) => row[key] !== undefined).map((key) => [key, row[key]])));
  const body = { convId, entries };
  const etag = tagOf(JSON.stringify(body));
  if (notModified(request, etag)) return json(304, null, { etag });
  return json(200, body, { etag });
}

/**
 * `routeArgs(cache, options)`, with a read that throws (a getter, a Proxy's trap, a revoked Proxy)
 * a `TypeError` naming what could not be read, rather than the caller's own error.
 * @param {unknown} cache
 * @param {unknown} options
 */
function readArgs(cache, options) {
  return readingArguments('cacheRoute', () => routeArgs(cache, options), [[cache, 'cache', ['lookup', 'entries']], [options, 'options', ['authorize', 'convId']]]);
}

/**
 * `cacheRoute` over the package's `parseCacheUri` (the entry exporting the route passes its own).
 * @param {ParseCacheUri} parse
 */
export function makeCacheRoute(parse) {
  /**
   * A web-standard request handler serving `cache`'s entries to the page; see js/index.d.ts
   * (`cacheRoute`) and docs/REACT.md. Throws a `TypeError` for bad arguments (`routeArgs`),
   * including arguments that cannot be read.
   * @param {unknown} cache
   * @param {unknown} options
   * @returns {(request: Request) => Promise<Response>}
   */
  return function cacheRoute(cache, options) {
    return handler(readArgs(cache, options), parse);
  };
}

/**
 * The handler of one route.
 * @param {ReturnType<typeof routeArgs>} args
 * @param {ParseCacheUri} parse
 * @returns {(request: Request) => Promise<Response>}
 */
function handler({ store, allowed, conversation }, parse) {
  return async (request) => {
    try {
      if (request.method !== 'GET') return json(405, { error: 'method_not_allowed' }, { allow: 'GET' });
      const asked = await readRequest(request, conversation, parse);
      if ((await allowed(request, { convId: asked.convId, uri: asked.uri })) !== true) throw new Refusal(403, 'forbidden');
      return asked.uri === null ? await listAnswer(store, request, asked.convId) : await entryAnswer(store, request, asked.convId, asked.uri, asked.page);
    } catch (error) {
      if (error instanceof Refusal) return json(error.status, error.body);
      return json(500, { error: 'internal_error' });
    }
  };
}
