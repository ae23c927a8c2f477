// The MCP reference servers (npm @modelcontextprotocol/server-everything, -filesystem, -memory,
// pinned devDependencies) in real headless Chromium (Playwright, Debian's /usr/bin/chromium): the
// page runs the browser entry (/pkg/browser.mjs), the SDK Client and wrapMcpClient (the bundle
// scripts/serve.mjs builds, www/vendor/mcp-sdk.js) over real IndexedDB; each server runs in Node
// over stdio (the SDK's StdioClientTransport spawning `node <bin>`), and the page's Client reaches
// it through a relay: an in-page SDK `Transport` whose `send` is an exposed function writing to
// the stdio transport, and whose `onmessage` Node calls with page.evaluate for every message the
// server writes. The scenarios are the Node test's (tests/support/reference-servers.mjs).
import { checks } from './checks.mjs';
import { openProfile } from './profile.mjs';
import { createContext, makeFixtures, scenarios, serverSpecs, stdioTransport } from '../support/reference-servers.mjs';

const { check, finish } = checks('reference-servers', { timeoutMs: 45_000 });
const fx = await makeFixtures();
const specs = serverSpecs(fx);

/** Node's side of the relay: name → the StdioClientTransport the page's transport talks to. */
const relays = new Map();
const relayErrors = [];
let closing = false;
let page;

/** Messages to the page, in order per server. */
const chains = new Map();
function deliver(name, kind, payload) {
  const previous = chains.get(name) ?? Promise.resolve();
  const next = previous.then(() => page.evaluate(([n, k, p]) => window.__relayDeliver(n, k, p), [name, kind, payload]))
    .catch((error) => { if (!closing) relayErrors.push(`${name} ${kind}: ${error.message}`); });
  chains.set(name, next);
}

/** Opens the page, installs the relay and the page's host (a Client per server, each wrapped). */
async function setUp(newPage) {
  page = await newPage();
  page.setDefaultTimeout(30_000);
  await page.exposeFunction('__relay', async (op, name, message) => {
    if (op === 'start') {
      const { transport, stderr } = stdioTransport(specs[name], fx.dir);
      relays.set(name, { transport, stderr });
      transport.onmessage = (m) => deliver(name, 'message', m);
      transport.onerror = (e) => deliver(name, 'error', String(e?.message ?? e));
      transport.onclose = () => deliver(name, 'close');
      await transport.start();
    } else if (op === 'send') {
      await relays.get(name).transport.send(message);
    } else if (op === 'close') {
      const relay = relays.get(name);
      relays.delete(name);
      if (relay) {
        relay.transport.onclose = undefined;
        await relay.transport.close();
      }
    }
  });

  // The page's host: the SDK Client over the relay, wrapped over one ResultCache on IndexedDB.
  await page.evaluate(async ({ names, convId }) => {
    const { Client, ResourceUpdatedNotificationSchema, wrapMcpClient } = await import('/www/vendor/mcp-sdk.js');
    const transports = {};
    class RelayTransport {
      constructor(name) { this.name = name; }
      async start() {
        transports[this.name] = this;
        await window.__relay('start', this.name);
      }
      async send(message) { await window.__relay('send', this.name, message); }
      async close() {
        delete transports[this.name];
        await window.__relay('close', this.name);
        this.onclose?.();
      }
    }
    window.__relayDeliver = (name, kind, payload) => {
      const t = transports[name];
      if (!t) return;
      if (kind === 'message') t.onmessage?.(payload);
      else if (kind === 'error') t.onerror?.(new Error(payload));
      else if (kind === 'close') { delete transports[name]; t.onclose?.(); }
    };

    const cache = new window.mrc.ResultCache({ dbName: 'reference-servers' });
    const seen = { host: [], cache: [] };
    const handle = cache.handleNotification.bind(cache);
    cache.handleNotification = async (notification) => {
      seen.cache.push(notification?.params?.uri);
      return handle(notification);
    };
    const clients = {};
    const wrapped = {};
    const taps = {};
    await Promise.all(names.map(async (name) => {
      const client = new Client({ name: `reference-page-${name}`, version: '1.0.0' });
      await client.connect(new RelayTransport(name));
      const tap = (taps[name] = { raw: null });
      const callTool = client.callTool.bind(client);
      client.callTool = async (...args) => {
        const result = await callTool(...args);
        tap.raw = structuredClone(result);
        return result;
      };
      clients[name] = client;
      wrapped[name] = wrapMcpClient(client, { cache, convId });
    }));
    wrapped.everything.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { seen.host.push(n.params.uri); });
    window.host = {
      async tools(server) {
        return { raw: (await clients[server].listTools()).tools, shown: (await wrapped[server].listTools()).tools };
      },
      async call(server, name, args) {
        taps[server].raw = null;
        const result = await wrapped[server].callTool({ name, arguments: args });
        return { result, raw: taps[server].raw };
      },
      read: (uri) => cache.substituteCacheUris({ x_uri: uri }, { convId }),
      lookup: (uri) => cache.lookup(uri, { convId }),
      stats: () => cache.stats(),
      subscribe: (server, uri) => clients[server].subscribeResource({ uri }),
      seen: () => ({ host: [...seen.host], cache: [...seen.cache] }),
      close: () => Promise.allSettled(Object.values(clients).map((c) => c.close())),
    };
  }, { names: Object.keys(specs), convId: 'ref-browser' });
}

/** The shared scenarios' host interface, answered by the page. */
const host = {
  label: 'chromium',
  convId: 'ref-browser',
  tools: (server) => page.evaluate((s) => window.host.tools(s), server),
  call: (server, name, args) => page.evaluate(([s, n, a]) => window.host.call(s, n, a), [server, name, args]),
  read: (uri) => page.evaluate((u) => window.host.read(u), uri),
  lookup: (uri) => page.evaluate((u) => window.host.lookup(u), uri),
  stats: () => page.evaluate(() => window.host.stats()),
  subscribe: (server, uri) => page.evaluate(([s, u]) => window.host.subscribe(s, u), [server, uri]),
  seen: () => page.evaluate(() => window.host.seen()),
};
const ctx = createContext(host);

let profile;
try {
  let connected = false;
  await check('a page on real IndexedDB connects to the four stdio servers through the relay', async () => {
    profile = await openProfile('reference-servers');
    await setUp(profile.newPage);
    connected = true;
  });
  if (connected) for (const [name, run] of scenarios) await check(name, () => run(ctx, fx));
  await check('the relay lost no message, and the page logged no error', async () => {
    const problems = [...relayErrors, ...(profile?.problems ?? [])];
    if (problems.length) throw new Error(problems.join(' | '));
  });
} finally {
  closing = true;
  await page?.evaluate(() => window.host?.close()).catch(() => {});
  await Promise.allSettled([...relays.values()].map((r) => r.transport.close()));
  await profile?.close();
  await fx.cleanup();
}
finish();
