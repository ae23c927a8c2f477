// A dedicated module worker with its own ResultCache over the same IndexedDB database as the
// page: it caches what it is sent, resolves the reference again and posts the result back.
import { ResultCache } from 'mcp-result-cache';

const cache = new ResultCache({ dbName: 'react-chat-example' });

self.onmessage = async ({ data: { payload, convId } }) => {
  try {
    const uri = await cache.cacheToolResult({ payload, convId, sourceToolName: 'worker.timeseries' });
    const substituted = await cache.substituteCacheUris({ data_uri: uri }, { convId });
    if (!substituted.ok) throw new Error(substituted.envelope.error);
    self.postMessage({ ok: true, uri, storage: cache.storage, data: substituted.args.data });
  } catch (error) {
    self.postMessage({ ok: false, error: `${error?.name}: ${error?.message}` });
  }
};
