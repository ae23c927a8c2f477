// The protocol's rules, for every hand-written JS file of the package (their one JS home): the
// constants generated from the Rust ones (pkg/protocol-constants.mjs, written by
// scripts/constants.mjs from `pub const` declarations in src/), and the small rules written over
// them here, each the JS twin of the Rust function it names. tests/js/protocol-rules.test.mjs
// compares every rule, and the two values below that Rust writes inline, with the Rust they
// mirror (through the release build) on generated and hostile inputs.
import { CACHE_URI_SCHEME, MAX_POINTER_BYTES, MAX_REF_MEMBER_CHARS, SERVER_MARK } from '../pkg/protocol-constants.mjs';

export * from '../pkg/protocol-constants.mjs';

/**
 * The read-back tools, as `core::view::push_read_hint` names them after the prefix
 * (`cache_read`, …); the differential test checks the hint and the tools' listing name these.
 * @type {readonly string[]}
 */
export const READ_TOOLS = /* @__PURE__ */ Object.freeze(['read', 'search', 'select']);

/** How the `error` line of every `invalid_args` envelope starts (`core::envelope`); tested against Rust's envelopes. */
export const INVALID_ARGS = 'invalid_args: ';

/** Whether `value` is a string starting with the scheme (`core::uri::has_cache_scheme`). */
/** @type {(value: unknown) => value is string} */
export const hasCacheScheme = (value) => typeof value === 'string' && value.startsWith(CACHE_URI_SCHEME);

/** RFC 6901 escaping of one reference token (`~` → `~0`, `/` → `~1`); numbers are array indexes. */
export const escapeToken = (/** @type {string | number} */ token) => String(token).replace(/~/g, '~0').replace(/\//g, '~1');

// What no reference carries: a control character (Rust's `char::is_control`: general category
// Cc), or a lone surrogate (`parseCacheUri` and substitution refuse a string that is not well
// formed; with the `u` flag a surrogate pair is one code point, not matched).
const UNCARRIED = /[\p{Cc}\p{Cs}]/u;

/**
 * `uri` extended by one token (`<uri>#/<token>`, or `<uri>/<token>` when it already points
 * inside), escaped as RFC 6901 says, nothing percent-encoded; `null` when
 * `core::uri::parse_cache_uri` would refuse the result: a control character or a lone surrogate,
 * or a fragment over MAX_POINTER_BYTES bytes of UTF-8.
 * @param {string} uri
 * @param {string | number} token
 * @returns {string | null}
 */
export function childReference(uri, token) {
  const escaped = escapeToken(token);
  if (UNCARRIED.test(escaped)) return null;
  const hash = uri.indexOf('#');
  const pointer = `${hash < 0 ? '' : uri.slice(hash + 1)}/${escaped}`;
  if (new TextEncoder().encode(pointer).length > MAX_POINTER_BYTES) return null;
  return `${hash < 0 ? uri : uri.slice(0, hash)}#${pointer}`;
}

/**
 * The ready reference to one member of the object behind `uri`, as `core::pointer::member_reference`
 * writes it into `_cache_refs`: `null` for a member of more than MAX_REF_MEMBER_CHARS characters
 * (Unicode scalar values) or with a control character, and (for a `uri` that already points
 * inside) past the pointer limit, or with a lone surrogate (Rust writes none for either).
 * @param {string} uri
 * @param {unknown} member
 * @returns {string | null}
 */
export function memberReference(uri, member) {
  if (typeof member !== 'string' || [...member].length > MAX_REF_MEMBER_CHARS) return null;
  return childReference(uri, member);
}

/**
 * A server name an entry can record (`bindings::convert::server_option`): well formed (no lone
 * surrogate), non-empty, without SERVER_MARK.
 * @param {unknown} name
 * @returns {name is string}
 */
export const isServerName = (name) => typeof name === 'string' && name !== '' && !name.includes(SERVER_MARK) && !/\p{Cs}/u.test(name);

/**
 * A tool name an entry can record (`bindings::convert::is_name`, as `afterToolCall` checks its
 * `toolName`): non-empty, without SERVER_MARK (it would read as a server's name before it).
 * @param {unknown} name
 * @returns {name is string}
 */
export const isToolName = (name) => typeof name === 'string' && name !== '' && !name.includes(SERVER_MARK);

/**
 * A read-tool prefix `core::view::is_tool_prefix` accepts: at most 32 of A-Z a-z 0-9 _ - .
 * @param {unknown} prefix
 * @returns {prefix is string}
 */
export const isToolPrefix = (prefix) => typeof prefix === 'string' && /^[A-Za-z0-9_.-]{0,32}$/.test(prefix);

/**
 * A model-facing `invalid_args` envelope, shaped as the cache's (`core::envelope`): `{ error, fix_hint }`.
 * @param {string} error what is wrong, after the `invalid_args: ` prefix
 * @param {string} fixHint what the model should do next
 * @returns {{ error: string, fix_hint: string }}
 */
export const invalidArgs = (error, fixHint) => ({ error: `${INVALID_ARGS}${error}`, fix_hint: fixHint });
