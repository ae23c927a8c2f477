// Own data properties set by definition, never by assignment: a key such as `__proto__` (a valid
// tool or property name) stays an ordinary key, and no setter on `Object.prototype` runs.

/**
 * Defines `key` on `object` as a plain data property (writable, enumerable, configurable) and
 * answers `object`. The descriptor has no prototype, so nothing inherited from
 * `Object.prototype` (a polluted `get` or `set`) can change it.
 * @template {object} T @param {T} object @param {string} key @param {unknown} value @returns {T}
 */
export const setOwn = (object, key, value) =>
  Object.defineProperty(object, key, /** @type {PropertyDescriptor} */ ({ __proto__: null, value, writable: true, enumerable: true, configurable: true }));
