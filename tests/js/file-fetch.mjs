// Lets the browser entries (pkg/browser.mjs, pkg/server.mjs) fetch their `.wasm` in Node, where
// `fetch` has no `file:` scheme: a `file:` URL is answered from disk as `application/wasm`, so
// the entry's own `ready()` resolves the URL it was built with (a wrong path fails the test).
// Any other URL goes to Node's fetch.
import { readFile } from 'node:fs/promises';

const networkFetch = globalThis.fetch;
globalThis.fetch = /** @type {typeof globalThis.fetch} */ (async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.protocol !== 'file:') return networkFetch(input, init);
  return new Response(await readFile(url), { headers: { 'content-type': 'application/wasm' } });
});
