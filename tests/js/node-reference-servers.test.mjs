// The MCP reference servers (npm @modelcontextprotocol/server-everything, -filesystem, -memory,
// pinned devDependencies nobody on this team wrote) over stdio — the SDK's StdioClientTransport
// spawning `node <bin>` from node_modules — through wrapMcpClient, on fake-indexeddb. The
// scenarios and the checks every result gets are in tests/support/reference-servers.mjs (shared
// with the Chromium run, tests/e2e/reference-servers.mjs).
import 'fake-indexeddb/auto';
import { after, before, test } from 'node:test';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { ResultCache } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';
import { createContext, makeFixtures, scenarios, serverSpecs, stdioTransport } from '../support/reference-servers.mjs';

// The host sets its handler with the SDK's CommonJS schema object (what a CJS host, or a bundle
// that resolved `require`, holds): the wrapper must still route it and keep the cache's.
const { ResourceUpdatedNotificationSchema } = /** @type {typeof import('@modelcontextprotocol/sdk/types.js')} */ (createRequire(import.meta.url)('@modelcontextprotocol/sdk/types.js'));

/**
 * The Node host: the shared scenarios' host, with the servers' stderr and a way to stop it all.
 * @typedef {import('../support/reference-servers.mjs').Host & { logs: Record<string, () => string>, close: () => Promise<void> }} NodeHost
 */

/**
 * The Node host of the shared scenarios: one Client per server, each wrapped over one cache.
 * @param {import('../support/reference-servers.mjs').Fixtures} fx
 * @returns {Promise<NodeHost>}
 */
async function nodeHost(fx) {
  const convId = 'ref-node';
  const cache = new ResultCache({ dbName: `reference-servers-${process.pid}` });
  /** @type {{ host: unknown[], cache: unknown[] }} */
  const seen = { host: [], cache: [] };
  const handle = cache.handleNotification.bind(cache);
  cache.handleNotification = async (notification) => {
    seen.cache.push(notification?.params?.uri);
    return handle(notification);
  };
  /** @type {Record<string, Client>} */
  const clients = {};
  /** @type {Record<string, Client>} */
  const wrapped = {};
  /** @type {Record<string, { raw: import('@modelcontextprotocol/sdk/types.js').CallToolResult | null }>} */
  const taps = {};
  /** @type {Record<string, () => string>} */
  const logs = {};
  await Promise.all(Object.entries(serverSpecs(fx)).map(async ([name, spec]) => {
    const { transport, stderr } = stdioTransport(spec, fx.dir);
    logs[name] = stderr;
    const client = new Client({ name: `reference-host-${name}`, version: '1.0.0' });
    await client.connect(transport);
    // What the server itself answered (a copy, taken before the wrapper sees it).
    const tap = /** @type {{ raw: import('@modelcontextprotocol/sdk/types.js').CallToolResult | null }} */ (taps[name] = { raw: null });
    const callTool = client.callTool.bind(client);
    client.callTool = async (...args) => {
      const result = await callTool(...args);
      tap.raw = /** @type {import('@modelcontextprotocol/sdk/types.js').CallToolResult} */ (structuredClone(result));
      return result;
    };
    clients[name] = client;
    wrapped[name] = wrapMcpClient(client, { cache, convId });
  }));
  wrapped.everything.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { seen.host.push(n.params.uri); });
  return {
    label: 'node',
    convId,
    logs,
    async tools(server) {
      return { raw: (await clients[server].listTools()).tools, shown: (await wrapped[server].listTools()).tools };
    },
    async call(server, name, args) {
      taps[server].raw = null;
      const result = /** @type {import('@modelcontextprotocol/sdk/types.js').CallToolResult} */ (await wrapped[server].callTool({ name, arguments: args }));
      return { result, raw: taps[server].raw };
    },
    read: (uri) => cache.substituteCacheUris({ x_uri: uri }, { convId }),
    lookup: (uri) => cache.lookup(uri, { convId }),
    stats: () => cache.stats(),
    subscribe: (server, uri) => clients[server].subscribeResource({ uri }),
    seen: async () => ({ host: [...seen.host], cache: [...seen.cache] }),
    async close() {
      await Promise.allSettled(Object.values(clients).map((c) => c.close()));
      cache.close?.();
    },
  };
}

/** @type {import('../support/reference-servers.mjs').Fixtures} */
let fx;
/** @type {NodeHost} */
let host;
/** @type {import('../support/reference-servers.mjs').Context} */
let ctx;
before(async () => {
  fx = await makeFixtures();
  host = await nodeHost(fx);
  ctx = createContext(host);
});
after(async () => {
  await host?.close();
  await fx?.cleanup();
});

for (const [name, run] of scenarios) {
  test(name, { timeout: 30_000 }, async () => {
    try {
      await run(ctx, fx);
    } catch (error) {
      // The servers' stderr helps when a server, not the package, is at fault.
      const logs = Object.entries(host.logs).map(([s, log]) => log() && `--- ${s} stderr:\n${log().slice(-1500)}`).filter(Boolean);
      if (logs.length && process.env.REFERENCE_SERVERS_LOGS) console.error(logs.join('\n'));
      throw error;
    }
  });
}
