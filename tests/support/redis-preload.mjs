// Preloaded (`node --import`) into the wasm-bindgen Node suite by tests/support/with-redis.mjs:
// with MCP_TEST_REDIS_URL set, `globalThis.mcpTestRedisStorage(name)` makes a `redisStorage`
// under a key prefix of its own per name, over one connected node-redis client, and the
// conformance suite (tests/suite/conformance.rs) adds "redis" to the storages it checks.
import { createClient } from 'redis';
import { redisStorage } from '../../js/redis.mjs';

const url = process.env.MCP_TEST_REDIS_URL;
// Loaded without a server, the suite would silently check no Redis at all.
if (!url) throw new Error('tests/support/redis-preload.mjs: MCP_TEST_REDIS_URL is not set (run under tests/support/with-redis.mjs)');
{
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  // The suite's runner exits when its tests are done: the connection keeps the process alive
  // only while an operation waits for Redis (unref'd, an awaited reply would let Node exit).
  let pending = 0;
  const settled = () => {
    pending -= 1;
    if (pending === 0) client.unref();
  };
  client.unref();
  globalThis.mcpTestRedisStorage = (name) => {
    const storage = redisStorage(client, { prefix: `test:${name}:` });
    return new Proxy(storage, {
      get(target, key) {
        const value = target[key];
        if (typeof value !== 'function') return value;
        return (...args) => {
          if (pending++ === 0) client.ref();
          const answer = value.apply(target, args);
          Promise.resolve(answer).then(settled, settled);
          return answer;
        };
      },
    });
  };
}
