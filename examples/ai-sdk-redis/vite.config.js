import { defineConfig } from 'vite';

// `.jsx` compiles without @vitejs/plugin-react in Vite 8 (add it for Fast Refresh). `npm run dev`
// serves the page alone: proxy /api to a running balancer (`npm start`) to chat from it.
export default defineConfig({
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
