// Modules the tests and the bench import whose entry ships no types of its own, typed for this
// repository's `tsc` runs (tsconfig.tools.json) with what the tests use of them; never shipped.
declare module 'fake-indexeddb/auto' {}
declare module 'react-dom/server' {
  export function renderToString(element: unknown): string;
}
