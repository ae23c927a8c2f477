// Preloaded (`node --import`) into the wasm-bindgen Node suite by tests/support/with-redis.mjs.
// The crate's conformance suite (tests/suite/conformance.rs) holds the stores of one process to
// one global budget and one LRU order over every conversation; `redisStorage` keeps its budget
// and LRU order per conversation (each conversation in its own hash slot, docs/REDIS.md), so it
// is no longer one of those kinds: this preload defines no `mcpTestRedisStorage`, and Redis is
// checked by the storage contract's own suite instead (`mcp-result-cache/storage-conformance`,
// tests/js/redis-storage-conformance.test.mjs: standalone and cluster, both clients) and by
// tests/js/redis-*.test.mjs.
if (!process.env.MCP_TEST_REDIS_URL) {
  throw new Error('tests/support/redis-preload.mjs: MCP_TEST_REDIS_URL is not set (run under tests/support/with-redis.mjs)');
}
