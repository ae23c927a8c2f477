import { defineConfig } from 'vite';

// Nothing mcp-result-cache-specific is needed with Vite 8: the .wasm is located through
// `new URL("…_bg.wasm", import.meta.url)`, which Vite handles in dev and build, on the page and
// in the worker. `.jsx` compiles without @vitejs/plugin-react (add it for Fast Refresh).
export default defineConfig({
  // The worker is started with `{ type: "module" }`: bundle it as an ES module to match.
  worker: { format: 'es' },
});
