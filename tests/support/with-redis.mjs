// `node tests/support/with-redis.mjs <command> [args…]`: runs the command with a real, fresh
// `redis-server` on a free loopback port (tests/support/redis-servers.mjs), its URL in
// MCP_TEST_REDIS_URL, and stops the server afterwards. Exits with the command's status.
import { spawn } from 'node:child_process';
import { startRedis } from './redis-servers.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node tests/support/with-redis.mjs <command> [args…]');
  process.exit(2);
}
const redis = await startRedis();
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, MCP_TEST_REDIS_URL: redis.url } });
const code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
await redis.stop();
process.exit(code);
