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

/**
 * @typedef {import('../support/reference-servers.mjs').ServerName} ServerName
 * @typedef {import('../support/reference-servers.mjs').Host} Host
 * @typedef {import('@modelcontextprotocol/sdk/shared/transport.js').Transport} Transport
 * @typedef {import('@modelcontextprotocol/sdk/types.js').JSONRPCMessage} JSONRPCMessage
 * @typedef {import('@modelcontextprotocol/sdk/types.js').CallToolResult} CallToolResult
 * @typedef {import('@modelcontextprotocol/sdk/client/index.js').Client} Client
 * @typedef {ReturnType<typeof import('../support/reference-servers.mjs').stdioTransport>} Relay
 * @typedef {import('playwright-core').Page} Page
 */
/**
 * The page's window: the browser entry (`mrc`), the relay's two ends (`__relay`, exposed by Node;
 * `__relayDeliver`, called by Node) and the page's host of the scenarios (`host`).
 * @typedef {Window & typeof globalThis & {
 *   mrc: typeof import('../../js/index.js'),
 *   __relay: (op: 'start' | 'send' | 'close', name: string, message?: JSONRPCMessage) => Promise<void>,
 *   __relayDeliver: (name: string, kind: string, payload?: unknown) => void,
 *   host: Omit<Host, 'label' | 'convId' | 'seen'> & { seen: () => { host: unknown[], cache: unknown[] }, close: () => Promise<unknown> },
 * }} RelayWindow
 */

const { check, finish } = checks('reference-servers', { timeoutMs: 45_000 });
const fx = await makeFixtures();
const specs = serverSpecs(fx);

/**
 * Node's side of the relay: name → the StdioClientTransport the page's transport talks to.
 * @type {Map<string, Relay>}
 */
const relays = new Map();
/** @type {string[]} */
const relayErrors = [];
let closing = false;
/** @type {Page | undefined} */
let page;

/**
 * Messages to the page, in order per server.
 * @type {Map<string, Promise<void>>}
 */
const chains = new Map();
/**
 * @param {string} name
 * @param {'message' | 'error' | 'close'} kind
 * @param {unknown} [payload]
 */
function deliver(name, kind, payload) {
  const previous = chains.get(name) ?? Promise.resolve();
  const next = previous.then(() => /** @type {Page} */ (page).evaluate(([n, k, p]) => /** @type {RelayWindow} */ (window).__relayDeliver(n, k, p), /** @type {[string, string, unknown]} */ ([name, kind, payload])))
    .catch((error) => { if (!closing) relayErrors.push(`${name} ${kind}: ${error.message}`); });
  chains.set(name, next);
}

/**
 * Opens the page, installs the relay and the page's host (a Client per server, each wrapped).
 * @param {() => Promise<import('playwright-core').Page>} newPage
 */
async function setUp(newPage) {
  page = await newPage();
  page.setDefaultTimeout(30_000);
  await page.exposeFunction('__relay', async (/** @type {string} */ op, /** @type {ServerName} */ name, /** @type {JSONRPCMessage} */ message) => {
    if (op === 'start') {
      const { transport, stderr } = stdioTransport(specs[name], fx.dir);
      relays.set(name, { transport, stderr });
      transport.onmessage = (m) => deliver(name, 'message', m);
      transport.onerror = (e) => deliver(name, 'error', String(e?.message ?? e));
      transport.onclose = () => deliver(name, 'close');
      await transport.start();
    } else if (op === 'send') {
      await /** @type {Relay} */ (relays.get(name)).transport.send(message);
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
    // The page's URL of the bundle (www/mcp-sdk.src.mjs built), as a string: not a path for tsc.
    const { Client, ResourceUpdatedNotificationSchema, wrapMcpClient } = /** @type {typeof import('../../www/mcp-sdk.src.mjs')} */ (await import(/** @type {string} */ ('/www/vendor/mcp-sdk.js')));
    /** @type {Record<string, Transport>} */
    const transports = {};
    /** The SDK `Transport` of one server, over the relay (the Client sets its `on…` handlers). */
    class RelayTransport {
      /** @param {string} name */
      constructor(name) { this.name = name; }
      async start() {
        transports[this.name] = this;
        await /** @type {RelayWindow} */ (window).__relay('start', this.name);
      }
      /** @param {JSONRPCMessage} message */
      async send(message) { await /** @type {RelayWindow} */ (window).__relay('send', this.name, message); }
      async close() {
        delete transports[this.name];
        await /** @type {RelayWindow} */ (window).__relay('close', this.name);
        /** @type {Transport} */ (this).onclose?.();
      }
    }
    /** @type {RelayWindow} */ (window).__relayDeliver = (name, kind, payload) => {
      const t = transports[name];
      if (!t) return;
      if (kind === 'message') t.onmessage?.(/** @type {JSONRPCMessage} */ (payload));
      else if (kind === 'error') t.onerror?.(new Error(/** @type {string} */ (payload)));
      else if (kind === 'close') { delete transports[name]; t.onclose?.(); }
    };

    const cache = new /** @type {RelayWindow} */ (window).mrc.ResultCache({ dbName: 'reference-servers' });
    /** @type {{ host: string[], cache: Array<string | undefined> }} */
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
    /** @type {Record<string, { raw: CallToolResult | null }>} */
    const taps = {};
    await Promise.all(names.map(async (name) => {
      const client = new Client({ name: `reference-page-${name}`, version: '1.0.0' });
      await client.connect(new RelayTransport(name));
      /** @type {{ raw: CallToolResult | null }} */
      const tap = (taps[name] = { raw: null });
      const callTool = client.callTool.bind(client);
      client.callTool = async (...args) => {
        const result = await callTool(...args);
        tap.raw = /** @type {CallToolResult} */ (structuredClone(result));
        return result;
      };
      clients[name] = client;
      wrapped[name] = wrapMcpClient(client, { cache, convId });
    }));
    wrapped.everything.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { seen.host.push(n.params.uri); });
    /** @type {RelayWindow} */ (window).host = {
      async tools(server) {
        return { raw: (await clients[server].listTools()).tools, shown: (await wrapped[server].listTools()).tools };
      },
      async call(server, name, args) {
        taps[server].raw = null;
        // These servers answer CallToolResult, never the SDK's pre-2024 `{ toolResult }` form.
        const result = /** @type {CallToolResult} */ (await wrapped[server].callTool({ name, arguments: args }));
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

/**
 * The shared scenarios' host interface, answered by the page.
 * @type {Host}
 */
const host = {
  label: 'chromium',
  convId: 'ref-browser',
  tools: (server) => /** @type {Page} */ (page).evaluate((s) => /** @type {RelayWindow} */ (window).host.tools(s), server),
  call: (server, name, args) => /** @type {Page} */ (page).evaluate(([s, n, a]) => /** @type {RelayWindow} */ (window).host.call(s, n, a), /** @type {[ServerName, string, Record<string, unknown>]} */ ([server, name, args])),
  read: (uri) => /** @type {Page} */ (page).evaluate((u) => /** @type {RelayWindow} */ (window).host.read(u), uri),
  lookup: (uri) => /** @type {Page} */ (page).evaluate((u) => /** @type {RelayWindow} */ (window).host.lookup(u), uri),
  stats: () => /** @type {Page} */ (page).evaluate(() => /** @type {RelayWindow} */ (window).host.stats()),
  subscribe: (server, uri) => /** @type {Page} */ (page).evaluate(([s, u]) => /** @type {RelayWindow} */ (window).host.subscribe(s, u), /** @type {[ServerName, string]} */ ([server, uri])),
  seen: () => /** @type {Page} */ (page).evaluate(() => /** @type {RelayWindow} */ (window).host.seen()),
};
const ctx = createContext(host);

/** @type {Awaited<ReturnType<typeof openProfile>> | undefined} */
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
  await page?.evaluate(() => /** @type {RelayWindow} */ (window).host?.close()).catch(() => {});
  await Promise.allSettled([...relays.values()].map((r) => r.transport.close()));
  await profile?.close();
  await fx.cleanup();
}
finish();
