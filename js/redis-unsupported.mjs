// `mcp-result-cache/redis` outside Node (browsers, workers, edge runtimes): Redis clients need
// Node's sockets, and so does the storage. Hosts there keep entries in IndexedDB or memory.
export const DEFAULT_PREFIX = 'mcp-result-cache:';
export function redisStorage() {
  throw Object.assign(new Error('redisStorage: mcp-result-cache/redis runs in Node only (its clients need Node sockets); browsers and workers keep entries in IndexedDB or memory'), { name: 'NotSupportedError' });
}
