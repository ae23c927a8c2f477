// `mcp-result-cache/redis` as an ES module: the CommonJS module is the one source (js/redis.cjs).
export { redisStorage, DEFAULT_PREFIX } from './redis.cjs';
