// Consumer tests: the package exactly as npm delivers it, used the ways consumers use it.
//
//   node tests/consumers/run.mjs        (after `npm run build`)
//
// `npm pack`s the repo, installs the tarball into fresh projects under .tmp/consumers/<name>/
// (git-ignored; inside the repo on purpose, so vite, vitest, typescript, react and
// fake-indexeddb resolve from the root node_modules by walking up while the package itself
// comes only from the tarball), then runs each consumer: Node ESM, Node CommonJS, Vitest,
// TypeScript (tsc --strict, moduleResolution "bundler"), the React chat example built by Vite
// and driven in headless Chromium (page + module worker), and a bundler-free
// <script type="module"> page. Each one asserts a real by-reference round trip. The server
// entry (`mcp-result-cache/server`, its own .wasm) and the lists entry (`mcp-result-cache/lists`,
// its own .wasm) each get Node ESM, CommonJS, TypeScript and plain-page consumers, the Vite build
// of the host-only example must contain neither, and the host entry must not export the lists
// entry's names.
//
// Output: `ok - <check>` / `not ok - <check>: <reason>` per check (details on stderr), then
// `consumers: N passed, M failed`; exit code 1 when anything failed. Every wait is bounded;
// servers, the browser and child processes are cleaned up on every exit path.
import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import ts from 'typescript';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const FIXTURES = join(REPO, 'tests/consumers/fixtures');
const EXAMPLE = join(REPO, 'examples/react-chat');
const WORK = join(REPO, '.tmp/consumers');
const ROOT_MODULES = join(REPO, 'node_modules');
const PACKAGE = 'mcp-result-cache';
const URI_RE = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}$/;
const STEP_MS = 60_000; // any single check
const WAIT_MS = 30_000; // any single browser wait
const DEADLINE_MS = 600_000; // the whole run, whatever happens (above the README check's own 500 s)

// ---- bookkeeping ------------------------------------------------------------------------------
/**
 * A failed check's error: its message, and what to print under it (`detail`: the tail of a
 * command's output; '' for an assertion, whose message says it all; absent: the stack).
 * @typedef {Error & { detail?: string }} Failure
 */
/** @type {{ name: string, ok: boolean }[]} */
const results = [];
/** @type {Set<string>} */
const passed = new Set();
/** @type {(() => unknown)[]} */
const cleanups = [];
/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
const started = Date.now();

// eslint-disable-next-line no-control-regex -- the terminal's colour codes start with ESC
const stripAnsi = (/** @type {unknown} */ s) => String(s).replace(/\u001b\[[0-9;]*m/g, '');
const oneLine = (/** @type {unknown} */ s) => stripAnsi(s).replace(/\s+/g, ' ').trim().slice(0, 400);

/** @param {string} name @param {Failure} [error] */
function record(name, error) {
  results.push({ name, ok: !error });
  if (!error) {
    passed.add(name);
    console.log(`ok - ${name}`);
    return;
  }
  console.log(`not ok - ${name}: ${oneLine(error.message ?? error)}`);
  const detail = error.detail ?? (error.stack ? error.stack.split('\n').slice(1).join('\n') : '');
  if (detail) console.error(stripAnsi(detail).split('\n').map((l) => `  # ${l}`).join('\n'));
}

/** @param {Promise<unknown>} promise @param {number} ms @param {string} what */
function withTimeout(promise, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms / 1000} s`), { detail: '' })), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs one check; `needs` names earlier checks it depends on.
 * @param {string} name @param {string[]} needs @param {() => unknown} fn @param {number} [ms]
 */
async function check(name, needs, fn, ms = STEP_MS) {
  const missing = needs.filter((n) => !passed.has(n));
  if (missing.length) return record(name, Object.assign(new Error(`not run: needs "${missing.join('", "')}"`), { detail: '' }));
  try {
    await withTimeout(Promise.resolve().then(fn), ms, 'the check');
    record(name);
  } catch (error) {
    record(name, /** @type {Failure} */ (error));
  }
}

/** @param {string} message @param {string} [detail] @returns {never} */
function fail(message, detail) {
  const error = /** @type {Failure} */ (new Error(message));
  error.detail = detail ?? ''; // an assertion: the message says it all, no stack
  throw error;
}

/** @param {unknown} condition @param {string} message @param {string} [detail] @returns {asserts condition} */
function assert(condition, message, detail) {
  if (!condition) fail(message, detail);
}

// ---- child processes --------------------------------------------------------------------------
const tail = (/** @type {string} */ s, n = 25) => s.trim().split('\n').slice(-n).join('\n');

/** npm must act on the temp project: drop the npm_* variables `npm test` exports (notably
 *  npm_config_local_prefix=/work/main), keeping only where the cache and config live. */
function npmEnv() {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig',
    'npm_config_cafile', 'npm_config_registry', 'npm_config_noproxy', 'npm_config_proxy',
    'npm_config_https_proxy']);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.has(k.toLowerCase())),
  );
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/**
 * Where and how long a command runs (default: the repository, this process's environment, a
 * check's time less 10 s).
 * @typedef {{ cwd?: string, env?: NodeJS.ProcessEnv, timeout?: number }} RunOptions
 */

/**
 * @param {string} command @param {string[]} args @param {RunOptions} [options]
 * @returns {Promise<{ stdout: string, stderr: string }>}
 */
function run(command, args, { cwd = REPO, env = process.env, timeout = STEP_MS - 10_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const label = `${basename(command)} ${args.join(' ')}`;
    // Own process group: a timeout kills the command and everything it started (vitest forks).
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      killGroup(child);
      reject(Object.assign(new Error(`${label}: timed out after ${timeout / 1000} s`), { detail: tail(stdout + stderr) }));
    }, timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolvePromise({ stdout, stderr });
      else reject(Object.assign(new Error(`${label} (in ${relative(REPO, cwd) || '.'}) exited with ${code ?? signal}`), {
        detail: tail(`${stdout}\n${stderr}`),
      }));
    });
  });
}

/** @param {import('node:child_process').ChildProcess} child */
function killGroup(child) {
  try {
    process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL');
  } catch {
    // already gone
  }
}

/** @param {string[]} args @param {RunOptions} [options] */
const node = (args, options) => run(process.execPath, args, options);
const lastJsonLine = (/** @type {string} */ stdout) => JSON.parse(/** @type {string} */ (stdout.trim().split('\n').at(-1)));

// ---- static HTTP server -----------------------------------------------------------------------
/** @type {Record<string, string>} */
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

/** @param {string} root @returns {Promise<string>} the server's origin */
async function serveStatic(root) {
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(/** @type {string} */ (req.url), 'http://127.0.0.1').pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = resolve(root, `.${path}`);
      if (file !== root && !file.startsWith(root + sep)) return void res.writeHead(403).end();
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, {
        'content-type': MIME[extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
        'cache-control': 'no-store',
      });
      if (req.method === 'HEAD') return void res.end();
      createReadStream(file).pipe(res);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  await /** @type {Promise<void>} */ (new Promise((ok, ko) => server.once('error', ko).listen(0, '127.0.0.1', ok)));
  /** @type {() => Promise<void>} */
  const close = () => new Promise((ok) => {
    server.closeAllConnections();
    server.close(() => ok());
  });
  cleanups.push(close);
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
}

// ---- browser ------------------------------------------------------------------------------------
/** @type {import('playwright-core').BrowserContext | null} */
let browserContext = null;

/** @returns {Promise<import('playwright-core').BrowserContext>} */
async function browser() {
  if (browserContext) return browserContext;
  const profile = await mkdtemp(join(tmpdir(), 'mcp-rc-consumers-'));
  cleanups.push(() => rm(profile, { recursive: true, force: true }));
  browserContext = await chromium.launchPersistentContext(profile, {
    ...chromiumOptions(),
    timeout: WAIT_MS,
  });
  cleanups.unshift(() => /** @type {import('playwright-core').BrowserContext} */ (browserContext).close()); // before the profile is removed
  return browserContext;
}

/**
 * An open page, what went wrong on it, the .wasm responses it got and its workers' URLs.
 * @typedef {{
 *   page: import('playwright-core').Page,
 *   problems: string[],
 *   wasmResponses: { url: string, type: string | undefined }[],
 *   workers: string[],
 * }} OpenedPage
 */

/**
 * A page whose errors (page errors, console errors, failed requests, wasm warnings) are kept.
 * @param {string} url @returns {Promise<OpenedPage>}
 */
async function openPage(url) {
  const page = await (await browser()).newPage();
  page.setDefaultTimeout(WAIT_MS);
  /** @type {string[]} */
  const problems = [];
  /** @type {OpenedPage['wasmResponses']} */
  const wasmResponses = [];
  /** @type {string[]} */
  const workers = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
    if (m.type() === 'warning' && /wasm|instantiateStreaming/i.test(m.text())) problems.push(`console.warn: ${m.text()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    if (r.url().endsWith('.wasm')) wasmResponses.push({ url: r.url(), type: r.headers()['content-type'] });
  });
  page.on('worker', (w) => {
    workers.push(w.url());
    w.on('console', (m) => m.type() === 'error' && problems.push(`worker console.error: ${m.text()}`));
  });
  await page.goto(url, { waitUntil: 'load', timeout: WAIT_MS });
  return { page, problems, wasmResponses, workers };
}

/**
 * The `data-*` attributes of the element `selector` matches, and its text (as `text`).
 * @param {import('playwright-core').Page} page @param {string} selector
 * @returns {Promise<Record<string, string>>}
 */
async function dataset(page, selector) {
  return /** @type {Promise<Record<string, string>>} */ (page.$eval(selector, (el) => ({ ...el.dataset, text: el.textContent })));
}

/** @param {Pick<OpenedPage, 'problems' | 'wasmResponses'>} opened */
function assertNoProblems({ problems, wasmResponses }) {
  assert(problems.length === 0, `${problems.length} page problem(s): ${problems[0]}`, problems.join('\n'));
  assert(wasmResponses.length > 0, 'no .wasm was fetched');
  for (const r of wasmResponses) assert(r.type === 'application/wasm', `${r.url} served as ${r.type}`);
}

// ---- consumer projects --------------------------------------------------------------------------
/** @type {string | null} */
let tarball = null; // absolute path
/** @type {Record<string, string>} */
const projects = {}; // name -> dir

/**
 * @param {string} name
 * @param {{ from?: string | null, filter?: (source: string) => boolean }} [options] what to copy
 *   into the new project (a directory), and which of its paths
 * @returns {Promise<string>} the project's directory
 */
async function createProject(name, { from = null, filter } = {}) {
  const dir = join(WORK, name);
  await mkdir(dir, { recursive: true });
  if (from) await cp(from, dir, { recursive: true, filter });
  projects[name] = dir;
  return dir;
}

/** @param {string} dir @param {object} manifest */
async function writeManifest(dir, manifest) {
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** @param {string} dir */
async function installTarball(dir) {
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--offline', relative(dir, /** @type {string} */ (tarball))], {
    cwd: dir,
    env: npmEnv(),
  });
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  assert(manifest.dependencies?.[PACKAGE]?.startsWith('file:'), `${basename(dir)}: dependency not recorded`);
  const installed = join(dir, 'node_modules', PACKAGE);
  const info = await stat(installed).catch(() => null);
  assert(info?.isDirectory(), `${basename(dir)}: node_modules/${PACKAGE} missing`);
}

/** @param {string} dir @param {string} [base] @returns {Promise<string[]>} paths relative to `base` */
async function listFiles(dir, base = dir) {
  /** @type {string[]} */
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, base)));
    else out.push(relative(base, full));
  }
  return out;
}

/** @param {unknown} exportsField a package.json's `exports` @returns {string[]} */
function exportTargets(exportsField) {
  if (typeof exportsField === 'string') return [exportsField];
  return Object.values(exportsField ?? {}).flatMap(exportTargets);
}

// ---- TypeScript helpers -------------------------------------------------------------------------
const TSC = join(ROOT_MODULES, 'typescript/bin/tsc');

/**
 * Names exported by a .d.ts: [values, types].
 * @param {string} dtsPath @returns {{ values: Set<string>, types: Set<string> }}
 */
function declaredExports(dtsPath) {
  // The module's exports as the compiler resolves them, `export *` of the generated declarations
  // included: what a consumer's `import { … }` can name.
  const program = ts.createProgram([dtsPath], {
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  /** @type {Set<string>} */
  const values = new Set();
  /** @type {Set<string>} */
  const types = new Set();
  for (const symbol of checker.getExportsOfModule(
    /** @type {ts.Symbol} */ (checker.getSymbolAtLocation(/** @type {ts.SourceFile} */ (program.getSourceFile(dtsPath)))))) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    (target.flags & ts.SymbolFlags.Value ? values : types).add(symbol.name);
  }
  return { values, types };
}

/**
 * Names a source file imports from `specifier` (the package or one of its subpaths).
 * @param {string} source @param {string} [specifier] @returns {Set<string>}
 */
function importedNames(source, specifier = PACKAGE) {
  const file = ts.createSourceFile('consumer.ts', source, ts.ScriptTarget.Latest, true);
  /** @type {Set<string>} */
  const names = new Set();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || /** @type {ts.StringLiteral} */ (statement.moduleSpecifier).text !== specifier) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add((e.propertyName ?? e.name).text);
  }
  return names;
}

/**
 * A top-level statement, with the name a declaration has (a variable statement: its list).
 * @typedef {ts.Statement & { name?: { text: string }, declarationList?: ts.VariableDeclarationList }} TopLevel
 */

/** Every `any` type in a declaration file (comments and strings are not types), counted per
 *  top-level declaration: { "interface InitOutput": 61, … }.
 * @param {string} path @param {string} source @returns {Record<string, number>} */
function anyTypesIn(path, source) {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  /** @type {Record<string, number>} */
  const counts = {};
  for (const statement of file.statements) {
    const name = /** @type {TopLevel} */ (statement).name?.text ?? /** @type {TopLevel} */ (statement).declarationList?.declarations[0]?.name.getText(file) ?? '?';
    const kind = ts.isVariableStatement(statement) ? 'const'
      : ts.isInterfaceDeclaration(statement) ? 'interface'
        : ts.isTypeAliasDeclaration(statement) ? 'type'
          : ts.isClassDeclaration(statement) ? 'class'
            : ts.isFunctionDeclaration(statement) ? 'function' : 'statement';
    const where = `${kind} ${name}`;
    const visit = (/** @type {ts.Node} */ n) => {
      if (n.kind === ts.SyntaxKind.AnyKeyword) counts[where] = (counts[where] ?? 0) + 1;
      ts.forEachChild(n, visit);
    };
    visit(statement);
  }
  return counts;
}

// ---- the checks -----------------------------------------------------------------------------------
const C = {
  pack: 'npm pack builds the tarball consumers get',
  install: 'the tarball installs into fresh consumer projects',
  contents: 'the installed package has no src/ target/ tests/, and has the wasm, declarations and every exports target',
  esm: 'node ESM (fake-indexeddb/auto first) round trip: cacheToolResult -> substituteCacheUris, afterToolCall -> beforeToolCall',
  cjs: 'node CommonJS (require) round trip; import() from CommonJS gives the same instance',
  vitest: 'vitest (node environment, fake-indexeddb setup file) round-trip tests pass',
  tsExports: 'the TypeScript consumer imports every export of each entry\'s declarations (as the compiler resolves them), and those match the Node and browser modules\' exports',
  tsc: 'tsc --noEmit --strict accepts the TypeScript consumer (moduleResolution bundler, skipLibCheck false)',
  tsRun: 'the TypeScript consumer, compiled, runs its round trip in Node',
  tsDocumented: 'tsc accepts the calls README.md documents with their optional arguments omitted',
  tsNode16: 'tsc with moduleResolution node16 types both an ESM (.mts) and a CommonJS (.cts) consumer',
  tsNodeNext: 'tsc with moduleResolution nodenext: wrapMcpClient takes the @modelcontextprotocol/sdk Client of the consumer\'s own format (ESM .mts, CommonJS .cts), and the ai-sdk entry types',
  serverEsm: 'node ESM imports mcp-result-cache/server (its own module) and decorates tools and results',
  serverCjs: 'node CommonJS requires mcp-result-cache/server; import() gives the same instance',
  listsEsm: 'node ESM imports mcp-result-cache/lists (its own module) and caches a list result for its SEP-2549 TTL',
  listsCjs: 'node CommonJS requires mcp-result-cache/lists; import() gives the same instance',
  listsNotInHost: 'the host entry (Node ESM, CommonJS, browser module and their declarations) does not export ListCache, matchUriTemplate or the list types',
  aiSdk: 'ai 7 + @ai-sdk/mcp: generateText (mock model, stopWhen) passes the 240 rows by reference to a real McpServer, blocks a missing reference before the server, shows an image as a media part',
  aiSdkCjs: 'node CommonJS requires mcp-result-cache/ai-sdk (require(esm)) and runs a clientToolSet tool',
  tsAiSdk: 'tsc --strict accepts a consumer of mcp-result-cache/ai-sdk with the AI SDK\'s own types (no error outside the AI SDK\'s declarations)',
  noAny: 'no `any` type in the shipped declarations (js/*.d.ts, pkg/web, pkg/node, pkg/server-*, pkg/lists-*)',
  readme: 'examples/react-chat from a checkout, as its README says: `npm install && npm run build` in a copy inside the repository (the package from the repository itself, file:../..)',
  viteBuild: 'the react-chat example builds with vite build (production, no React plugin), without the server or lists module',
  chat: 'react-chat (useChat, client-side tools via onToolCall/addToolOutput, mock model) in Chromium: the chart server receives the 240 rows while the model typed only the reference',
  rows: 'react-chat: the chart\'s rows as a table (20 a page, paged) and a JSON download, read from IndexedDB by useCachedResult (mcp-result-cache/react), equal to what the chart server received',
  rowsCleared: 'react-chat: clearing the chat\'s stored results turns the table "missing", with no reload',
  mail: 'react-chat: mailing the rows by reference asks through useChat\'s tool approval (flows "guarded"); Deny: the mailer gets nothing; Allow: the 240 rows',
  worker: 'react-chat module worker caches in IndexedDB and substitutes the payload back',
  plain: 'a plain <script type="module"> page imports pkg/browser.mjs unbundled and round-trips',
  plainServer: 'a plain <script type="module"> page imports pkg/server.mjs unbundled and fetches only the server .wasm',
  plainLists: 'a plain <script type="module"> page imports pkg/lists.mjs unbundled, round-trips a list result and fetches only the lists .wasm',
};

async function main() {
  await rm(WORK, { recursive: true, force: true });
  await mkdir(join(WORK, 'pack'), { recursive: true });

  await check(C.pack, [], async () => {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', join(WORK, 'pack')], { env: npmEnv() });
    const [info] = JSON.parse(stdout);
    tarball = join(WORK, 'pack', info.filename);
    assert((await stat(tarball)).size > 0, 'empty tarball');
  });

  await check(C.install, [C.pack], async () => {
    const cjsAndEsm = [
      ['node-esm', 'module'], ['node-cjs', 'commonjs'], ['vitest', 'module'], ['typescript', 'module'], ['plain-esm', 'module'],
    ];
    const dirs = await Promise.all(cjsAndEsm.map(async ([name, type]) => {
      const dir = await createProject(name, { from: join(FIXTURES, name) });
      await writeManifest(dir, { name: `consumer-${name}`, version: '0.0.0', private: true, type });
      return dir;
    }));
    // The React example: its committed sources, its manifest minus what the repo root provides
    // (react, react-dom and vite resolve from the root node_modules): only the tarball is added.
    const example = JSON.parse(await readFile(join(EXAMPLE, 'package.json'), 'utf8'));
    for (const dep of [PACKAGE, 'react', 'react-dom', 'ai', '@ai-sdk/react']) {
      assert(example.dependencies?.[dep], `examples/react-chat/package.json must declare ${dep}`);
    }
    const chat = await createProject('react-chat', {
      from: EXAMPLE,
      filter: (src) => !/[/\\](node_modules|dist)$/.test(src),
    });
    const { dependencies: _dependencies, devDependencies: _devDependencies, ...manifest } = example;
    await writeManifest(chat, manifest);
    await Promise.all([...dirs, chat].map(installTarball));
  });

  await check(C.contents, [C.install], async () => {
    const root = join(projects['node-esm'], 'node_modules', PACKAGE);
    const files = await listFiles(root);
    const forbidden = files.filter((f) => /^(src|target|tests|node_modules|www|scripts|examples|\.tmp)\//.test(f) || /\.(rs|tgz)$/.test(f));
    assert(forbidden.length === 0, `unexpected files: ${forbidden.slice(0, 5).join(', ')}`, forbidden.join('\n'));
    for (const f of ['pkg/web/mcp_result_cache_bg.wasm', 'pkg/node/mcp_result_cache_bg.wasm', 'pkg/web/mcp_result_cache.d.ts', 'js/index.d.ts',
      'pkg/server-web/mcp_result_cache_bg.wasm', 'pkg/server-node/mcp_result_cache_bg.wasm', 'pkg/server-web/mcp_result_cache.d.ts', 'js/server.d.ts',
      'pkg/lists-web/mcp_result_cache_bg.wasm', 'pkg/lists-node/mcp_result_cache_bg.wasm', 'pkg/lists-web/mcp_result_cache.d.ts', 'js/lists.d.ts']) {
      assert(files.includes(f), `missing ${f}`);
    }
    for (const f of files.filter((f) => f.endsWith('.wasm'))) {
      const head = (await readFile(join(root, f))).subarray(0, 4);
      assert(head.equals(Buffer.from([0, 0x61, 0x73, 0x6d])), `${f} is not a wasm module`);
    }
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    const targets = [...exportTargets(manifest.exports), manifest.main, manifest.module, manifest.types].filter(Boolean);
    const absent = targets.filter((t) => !files.includes(t.replace(/^\.\//, '')));
    assert(absent.length === 0, `package.json points at missing files: ${absent.join(', ')}`);
  });

  await check(C.esm, [C.install], async () => {
    const { stdout } = await node(['index.mjs'], { cwd: projects['node-esm'] });
    const out = lastJsonLine(stdout);
    assert(out.ok && URI_RE.test(out.uri) && URI_RE.test(out.visibleUri), `unexpected output ${stdout}`);
  });

  await check(C.cjs, [C.install], async () => {
    const { stdout } = await node(['index.cjs'], { cwd: projects['node-cjs'] });
    const out = lastJsonLine(stdout);
    assert(out.ok && URI_RE.test(out.uri) && URI_RE.test(out.visibleUri), `unexpected output ${stdout}`);
  });

  await check(C.serverEsm, [C.install], async () => {
    const out = lastJsonLine((await node(['server.mjs'], { cwd: projects['node-esm'] })).stdout);
    assert(out.ok && out.description === 'An invoice. [Cache-Control: no-store]', `unexpected output ${JSON.stringify(out)}`);
  });

  await check(C.serverCjs, [C.install], async () => {
    const out = lastJsonLine((await node(['server.cjs'], { cwd: projects['node-cjs'] })).stdout);
    assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
  });

  await check(C.listsEsm, [C.install], async () => {
    const out = lastJsonLine((await node(['lists.mjs'], { cwd: projects['node-esm'] })).stdout);
    assert(out.ok && out.ageMs === 0 && out.vars?.id === '7', `unexpected output ${JSON.stringify(out)}`);
  });

  await check(C.listsCjs, [C.install], async () => {
    const out = lastJsonLine((await node(['lists.cjs'], { cwd: projects['node-cjs'] })).stdout);
    assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
  });

  await check(C.aiSdk, [C.install], async () => {
    const out = lastJsonLine((await node(['ai-sdk.mjs'], { cwd: projects['node-esm'] })).stdout);
    assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
    assert(URI_RE.test(out.reference.split('#')[0]) && out.reference.endsWith('#/rows'), `the model was given ${out.reference}`);
    assert(JSON.stringify(out.typed) === JSON.stringify({ title: 'cpu', data_uri: out.reference }), `the model typed ${JSON.stringify(out.typed)}`);
    assert(out.pointsReceived === 240 && out.receivedKeys.join(',') === 'title,data', `the server received ${out.pointsReceived} points, keys ${out.receivedKeys}`);
    assert(out.serverCallsAfterBlocked === 1, `the blocked call reached the server (${out.serverCallsAfterBlocked} calls)`);
    assert(/could not be resolved/.test(out.envelopeError) && out.missing?.[0] === 'mcp+cache://chat-ai/AAAAAAAAAAAA', `envelope ${out.envelopeError}`);
    assert(out.media.type === 'content' && out.media.part === 'file' && out.media.mediaType === 'image/png' && out.media.sameBytes === true,
      `the image reached the model as ${JSON.stringify(out.media)}`);
    assert(out.answer === '{"ok":true,"points":240}', `answer ${out.answer}`);
  });

  await check(C.aiSdkCjs, [C.install], async () => {
    const out = lastJsonLine((await node(['ai-sdk.cjs'], { cwd: projects['node-cjs'] })).stdout);
    assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
  });

  /**
   * What Vitest's JSON reporter writes (the fields read here).
   * @typedef {{
   *   numTotalTests: number,
   *   numPassedTests: number,
   *   testResults: { assertionResults: { fullName: string, status: string, failureMessages: string[] }[] }[],
   * }} VitestReport
   */
  await check(C.vitest, [C.install], async () => {
    const dir = projects.vitest;
    const report = join(dir, 'vitest-report.json');
    await node([join(ROOT_MODULES, 'vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'),
      '--reporter=json', `--outputFile=${report}`], { cwd: dir, env: { ...process.env, CI: '1' } })
      .catch(async (/** @type {Failure} */ error) => {
        const json = await readFile(report, 'utf8').catch(() => null);
        const failures = json ? /** @type {VitestReport} */ (JSON.parse(json)).testResults.flatMap((f) => f.assertionResults)
          .filter((a) => a.status !== 'passed').map((a) => `${a.fullName}: ${a.failureMessages.join(' ')}`) : [];
        if (failures.length) error.message = `${failures.length} failing: ${failures[0]}`;
        throw error;
      });
    const { numTotalTests, numPassedTests } = /** @type {VitestReport} */ (JSON.parse(await readFile(report, 'utf8')));
    assert(numTotalTests === 3 && numPassedTests === 3, `${numPassedTests}/${numTotalTests} tests passed`);
  });

  const installedRoot = () => join(projects.typescript, 'node_modules', PACKAGE);

  await check(C.tsExports, [C.install], async () => {
    // Each entry: its declarations, the consumer that must import all of them, its modules (the
    // Node one and the browser one: importing the browser module has no side effects).
    const entries = [
      // `cacheRoute` serves requests on a server: the Node module only (a bundler importing it for a page fails the build).
      { dts: 'js/index.d.ts', consumer: 'consumer.ts', specifier: PACKAGE, modules: ['pkg/node.mjs', 'pkg/browser.mjs'], nodeOnly: ['cacheRoute'] },
      { dts: 'js/server.d.ts', consumer: 'server-consumer.ts', specifier: `${PACKAGE}/server`, modules: ['pkg/server.node.mjs', 'pkg/server.mjs'] },
      { dts: 'js/lists.d.ts', consumer: 'lists-consumer.ts', specifier: `${PACKAGE}/lists`, modules: ['pkg/lists.node.mjs', 'pkg/lists.mjs'] },
      { dts: 'js/ai-sdk.d.ts', consumer: 'ai-sdk-consumer.ts', specifier: `${PACKAGE}/ai-sdk`, modules: ['js/ai-sdk.node.mjs', 'js/ai-sdk.mjs'] },
      { dts: 'js/redis.d.ts', consumer: 'redis-consumer.ts', specifier: `${PACKAGE}/redis`, modules: ['js/redis.mjs', 'js/redis-unsupported.mjs'] },
      { dts: 'js/react.d.ts', consumer: 'react-consumer.ts', specifier: `${PACKAGE}/react`, modules: ['js/react.mjs'] },
    ];
    for (const { dts, consumer, specifier, modules, nodeOnly = [] } of entries) {
      const declared = declaredExports(join(installedRoot(), dts));
      assert(declared.values.size > 0, `${dts} declares no value (did its \`export *\` resolve?)`);
      const imported = importedNames(await readFile(join(projects.typescript, consumer), 'utf8'), specifier);
      const notUsed = [...declared.values, ...declared.types].filter((n) => !imported.has(n));
      assert(notUsed.length === 0, `${consumer} does not import: ${notUsed.join(', ')} (add them to tests/consumers/fixtures/typescript/${consumer})`);
      for (const entry of modules) {
        const runtime = Object.keys(await import(pathToFileURL(join(installedRoot(), entry)).href));
        const undeclared = runtime.filter((n) => !declared.values.has(n));
        const missing = [...declared.values].filter((n) => !runtime.includes(n) && !(entry !== modules[0] && nodeOnly.includes(n)));
        assert(undeclared.length === 0, `exported by ${entry} but not declared in ${dts}: ${undeclared.join(', ')}`);
        assert(missing.length === 0, `declared in ${dts} but not exported by ${entry}: ${missing.join(', ')}`);
      }
    }
  });

  await check(C.listsNotInHost, [C.install], async () => {
    // A regression that compiles the list cache back into the host build (node.cjs spreads the
    // whole nodejs build) or re-exports it from an entry file fails here.
    const listNames = ['ListCache', 'matchUriTemplate', 'ListCacheOptions', 'ListRequestParams', 'ListCacheHit'];
    const root = installedRoot();
    const modules = {
      'pkg/node.mjs': await import(pathToFileURL(join(root, 'pkg/node.mjs')).href),
      'js/node.cjs': createRequire(join(root, 'package.json'))(join(root, 'js/node.cjs')),
      'pkg/browser.mjs': await import(pathToFileURL(join(root, 'pkg/browser.mjs')).href),
    };
    for (const [entry, exports] of Object.entries(modules)) {
      assert(Object.keys(exports).length > 10, `${entry} exports only ${Object.keys(exports).join(', ')}`);
      const found = listNames.filter((n) => n in exports);
      assert(found.length === 0, `${entry} exports ${found.join(', ')} (they belong to ${PACKAGE}/lists only)`);
    }
    for (const dts of ['js/index.d.ts', 'pkg/node/index.d.mts', 'pkg/node/index.d.cts']) {
      const declared = declaredExports(join(root, dts));
      assert(declared.values.has('ResultCache'), `${dts} does not declare ResultCache (did its \`export *\` resolve?)`);
      const found = listNames.filter((n) => declared.values.has(n) || declared.types.has(n));
      assert(found.length === 0, `${dts} declares ${found.join(', ')} (they belong to ${PACKAGE}/lists only)`);
    }
    // And the lists entry's declarations do declare them (the names above are not misspelt).
    const lists = declaredExports(join(root, 'js/lists.d.ts'));
    const absent = listNames.filter((n) => !lists.values.has(n) && !lists.types.has(n));
    assert(absent.length === 0, `js/lists.d.ts does not declare ${absent.join(', ')}`);
  });

  await check(C.tsc, [C.install], async () => {
    await node([TSC, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: projects.typescript }).catch((/** @type {Failure} */ error) => {
      const errors = error.detail?.split('\n').filter((l) => /error TS/.test(l)) ?? [];
      if (errors.length) error.message = `${errors.length} type error(s): ${errors[0]}`;
      throw error;
    });
    // The declarations really come from the installed package through the `types` condition.
    const { stdout } = await node([TSC, '-p', 'tsconfig.json', '--listFiles'], { cwd: projects.typescript });
    for (const dts of ['js/index.d.ts', 'js/server.d.ts', 'js/lists.d.ts']) {
      const expected = join(installedRoot(), dts);
      assert(stdout.split('\n').includes(expected), `tsc did not load ${relative(REPO, expected)}`);
    }
  });

  await check(C.tsRun, [C.tsc], async () => {
    for (const name of ['consumer', 'server-consumer', 'lists-consumer']) {
      const source = await readFile(join(projects.typescript, `${name}.ts`), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      await writeFile(join(projects.typescript, `${name}.mjs`), outputText);
    }
    const out = lastJsonLine((await node(['consumer.mjs'], { cwd: projects.typescript })).stdout);
    assert(out.ok && URI_RE.test(out.uri) && URI_RE.test(out.modelUri), `unexpected output ${JSON.stringify(out)}`);
    const server = lastJsonLine((await node(['server-consumer.mjs'], { cwd: projects.typescript })).stdout);
    assert(server.ok && server.overlaps === 1, `unexpected server output ${JSON.stringify(server)}`);
    const lists = lastJsonLine((await node(['lists-consumer.mjs'], { cwd: projects.typescript })).stdout);
    assert(lists.ok && lists.vars?.id === '7', `unexpected lists output ${JSON.stringify(lists)}`);
  });

  await check(C.tsDocumented, [C.install], async () => {
    await node([TSC, '-p', 'tsconfig.documented.json', '--pretty', 'false'], { cwd: projects.typescript }).catch((/** @type {Failure} */ error) => {
      const errors = error.detail?.split('\n').filter((l) => /error TS/.test(l)) ?? [];
      if (errors.length) error.message = `${errors.length} documented call(s) rejected, e.g. ${errors[0]}`;
      throw error;
    });
  });

  await check(C.tsNode16, [C.install], async () => {
    await node([TSC, '-p', 'tsconfig.node16.json', '--pretty', 'false'], { cwd: projects.typescript }).catch((/** @type {Failure} */ error) => {
      const errors = error.detail?.split('\n').filter((l) => /error TS/.test(l)) ?? [];
      if (errors.length) error.message = `${errors.length} type error(s), e.g. ${errors[0]}`;
      throw error;
    });
  });

  await check(C.tsNodeNext, [C.install], async () => {
    const dir = projects.typescript;
    await node([TSC, '-p', 'tsconfig.nodenext.json', '--pretty', 'false'], { cwd: dir }).catch((/** @type {Failure} */ error) => {
      const errors = error.detail?.split('\n').filter((l) => /error TS/.test(l)) ?? [];
      if (errors.length) error.message = `${errors.length} type error(s), e.g. ${errors[0]}`;
      throw error;
    });
    // Each side read the declarations of its own format (a `.d.ts` is read as one format only).
    const { stdout } = await node([TSC, '-p', 'tsconfig.nodenext.json', '--listFiles'], { cwd: dir });
    for (const dts of ['pkg/mcp-client.d.mts', 'pkg/mcp-client.d.cts', 'pkg/ai-sdk.d.mts', 'pkg/ai-sdk.d.cts', 'pkg/react.d.mts']) {
      const expected = join(installedRoot(), dts);
      assert(stdout.split('\n').includes(expected), `tsc did not load ${relative(REPO, expected)}`);
    }
  });

  await check(C.tsAiSdk, [C.install], async () => {
    const dir = projects.typescript;
    // The AI SDK's own declarations do not pass tsc's lib check under these strict options (no
    // @types/node, exactOptionalPropertyTypes); every other file (the consumer, our
    // declarations) must type-check without a single error.
    const aiSdkOwn = /^(\.\.\/)*node_modules\/(ai|@ai-sdk\/[^/]+)\/dist\//;
    // tsc exits non-zero on those: its whole output is read, not only the tail `run` keeps.
    const { stdout } = await /** @type {Promise<{ stdout: string, error: import('node:child_process').ExecFileException | null }>} */ (new Promise((done) => execFile(process.execPath, [TSC, '-p', 'tsconfig.ai-sdk.json', '--pretty', 'false', '--listFiles'],
      { cwd: dir, maxBuffer: 64 << 20, timeout: STEP_MS - 10_000 }, (error, out) => done({ stdout: String(out ?? ''), error }))));
    const full = stdout;
    const errors = full.split('\n').filter((l) => /error TS/.test(l));
    const ours = errors.filter((l) => !aiSdkOwn.test(relative(dir, resolve(dir, l.split('(')[0]))));
    assert(ours.length === 0, `${ours.length} type error(s): ${ours[0]}`, ours.join('\n'));
    const expected = join(installedRoot(), 'js/ai-sdk.d.ts');
    assert(stdout.split('\n').includes(expected), `tsc did not load ${relative(REPO, expected)}`);
  });

  await check(C.noAny, [C.install], async () => {
    const root = installedRoot();
    const files = (await listFiles(root)).filter((f) => f.endsWith('.d.ts'));
    const found = [];
    for (const f of files) {
      const counts = Object.entries(anyTypesIn(f, await readFile(join(root, f), 'utf8')));
      const total = counts.reduce((sum, [, n]) => sum + n, 0);
      const places = counts.map(([where]) => where);
      if (total) found.push(`${f}: ${total} in ${places.length > 3 ? `${places.length} declarations (${places.slice(0, 3).join(', ')}, …)` : places.join(', ')}`);
    }
    assert(found.length === 0, `\`any\` in ${found.join('; ')}`, found.join('\n'));
  });

  /** @type {string | null} */
  let chatUrl = null;
  await check(C.readme, [], async () => {
    // A copy two levels below the repository root, so that its `file:../..` is this repository;
    // its dependencies come from the registry, as a new user's do.
    const dir = join(REPO, '.tmp/react-chat-readme');
    await rm(dir, { recursive: true, force: true });
    await cp(EXAMPLE, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    assert(manifest.dependencies?.[PACKAGE] === 'file:../..', `examples/react-chat depends on ${manifest.dependencies?.[PACKAGE]}, not the repository (file:../..)`);
    await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env: npmEnv(), timeout: 240_000 });
    await run('npm', ['run', 'build'], { cwd: dir, env: npmEnv(), timeout: 240_000 });
    const html = await readFile(join(dir, 'dist/index.html'), 'utf8').catch(() => '');
    assert(/<script[^>]+type="module"/.test(html), 'dist/index.html has no module script');
  }, 500_000);

  await check(C.viteBuild, [C.install], async () => {
    const dir = projects['react-chat'];
    await node([join(ROOT_MODULES, 'vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: dir });
    const dist = join(dir, 'dist');
    const files = await listFiles(dist);
    assert(files.includes('index.html'), 'dist/index.html missing');
    assert(files.some((f) => /^assets\/.*\.wasm$/.test(f)), `no .wasm asset emitted: ${files.join(', ')}`);
    assert(files.some((f) => /^assets\/worker-.*\.js$/.test(f)), `no worker chunk emitted: ${files.join(', ')}`);
    // The example imports only the host entry: the server's and the lists' modules must not be
    // in the build. Each glue is recognised by a string its minified browser module keeps (the
    // name in its "await ready()" error), checked to be there so the test cannot go vacuous.
    const installed = join(dir, 'node_modules', PACKAGE);
    const hostWasm = await readFile(join(installed, 'pkg/web/mcp_result_cache_bg.wasm'));
    const wasmAssets = await Promise.all(files.filter((f) => f.endsWith('.wasm')).map((f) => readFile(join(dist, f))));
    assert(wasmAssets.some((w) => w.equals(hostWasm)), 'the host .wasm is not among the emitted assets');
    const scripts = await Promise.all(files.filter((f) => f.endsWith('.js')).map((f) => readFile(join(dist, f), 'utf8')));
    for (const { name, wasm, glue, marker } of [
      { name: 'server', wasm: 'pkg/server-web/mcp_result_cache_bg.wasm', glue: 'pkg/server.mjs', marker: 'new StateSync' },
      { name: 'lists', wasm: 'pkg/lists-web/mcp_result_cache_bg.wasm', glue: 'pkg/lists.mjs', marker: 'new ListCache' },
    ]) {
      const entryWasm = await readFile(join(installed, wasm));
      assert(!wasmAssets.some((w) => w.equals(entryWasm)), `the ${name} .wasm was bundled into a host-only build`);
      assert((await readFile(join(installed, glue), 'utf8')).includes(marker), `${glue} no longer contains "${marker}": update this check`);
      assert(!scripts.some((js) => js.includes(marker)), `the ${name} glue ("${marker}") was bundled into a host-only build`);
    }
    chatUrl = await serveStatic(dist);
  });

  /** @type {OpenedPage | null} */
  let chat = null;
  await check(C.chat, [C.viteBuild], async () => {
    chat = await openPage(`${chatUrl}/`);
    const { page } = chat;
    await page.click('#send');
    await page.waitForSelector('#status[data-state="done"], #status[data-state="error"]');
    const status = await dataset(page, '#status');
    assert(status.state === 'done', `chat turn failed: ${status.error || status.text}`);
    assert(status.points === '240', `chart.create answered ${status.points} points`);
    // The chart server itself received the 240 rows, while the model typed only the reference.
    assert(status.receivedPoints === '240', `the chart server received ${status.receivedPoints} rows`);
    assert(URI_RE.test(status.uri), `minted ${status.uri}`);
    const modelCall = JSON.parse(status.modelArgs);
    assert(modelCall.name === 'chart.create', `model called ${modelCall.name}`);
    const args = modelCall.arguments;
    assert(typeof args.data_uri === 'string' && args.data_uri.startsWith(status.uri), `model args ${status.modelArgs}`);
    assert(!('data' in args) && status.modelArgs.length < 200 && !status.modelArgs.includes('"value"'),
      `the model-visible arguments carry rows: ${status.modelArgs.slice(0, 120)}`);
    assert(status.dispatchedKeys === 'title,data', `chart.create was dispatched with ${status.dispatchedKeys}`);
    assert(status.storage === 'indexeddb', `storage ${status.storage}`);
    // useChat's message list renders both tool parts, each with its output available.
    const toolParts = await page.$$eval('.msg.tool', (els) => els.map((e) => ({ tool: e.dataset.tool, state: e.dataset.state, text: e.textContent })));
    assert(toolParts.length === 2 && toolParts[0].text.includes(status.uri), `tool parts: ${JSON.stringify(toolParts).slice(0, 200)}`);
    assert(toolParts.map((p) => `${p.tool}:${p.state}`).join(',') === 'timeseries.query:output-available,chart.create:output-available',
      `tool parts ${toolParts.map((p) => `${p.tool}:${p.state}`).join(',')}`);
    assert(status.chatId && URI_RE.test(status.uri) && status.uri.startsWith(`mcp+cache://${status.chatId}/`), `the reference ${status.uri} is not in chat ${status.chatId}`);
    assert(/Here is your chart \(chart-\d+\) with 240 points\./.test(/** @type {string} */ (await page.textContent('.messages'))), 'the assistant did not answer');
    const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    assert(databases.includes('react-chat-example'), `IndexedDB databases: ${databases}`);
    assertNoProblems(chat);
  });

  /**
   * The table of the chart's rows: its `data-*` attributes (those read here) and its cells.
   * @typedef {{ status: string, total: string, uri: string, rows: (string | null)[][] }} ChartRows
   */
  await check(C.rows, [C.chat], async () => {
    const { page } = /** @type {OpenedPage} */ (chat);
    // (The DOM collections are iterable in the page; the lib here has no "dom.iterable".)
    const table = async () => /** @type {Promise<ChartRows>} */ (page.$eval('#chart-rows', (el) => ({
      ...el.dataset,
      rows: [.../** @type {Iterable<Element>} */ (/** @type {unknown} */ (el.querySelectorAll('tbody tr')))]
        .map((tr) => [.../** @type {Iterable<Element>} */ (/** @type {unknown} */ (tr.children))].map((td) => td.textContent)),
    })));
    await page.waitForSelector('#chart-rows[data-status="ready"] tbody tr, #chart-rows[data-status="error"], #chart-rows[data-status="missing"]');
    const first = await table();
    const status = await dataset(page, '#status');
    assert(first.status === 'ready' && first.total === '240' && first.rows.length === 20, `#chart-rows ${JSON.stringify(first).slice(0, 300)}`);
    assert(first.uri === JSON.parse(status.modelArgs).arguments.data_uri, `the table reads ${first.uri}, the model passed ${status.modelArgs}`);
    const received = JSON.parse(/** @type {string} */ (await page.textContent('#chart-received')));
    assert(Array.isArray(received) && received.length === 240, 'the page does not expose what the chart server received');
    const asCells = (/** @type {{ t: unknown, value: unknown }[]} */ rows) => rows.map((r) => [r.t, String(r.value)]);
    assert(JSON.stringify(first.rows) === JSON.stringify(asCells(received.slice(0, 20))), `rows 1-20 ${JSON.stringify(first.rows.slice(0, 2))}, the chart got ${JSON.stringify(received.slice(0, 2))}`);
    await page.click('#rows-next');
    await page.waitForSelector('#chart-rows[data-offset="20"][data-status="ready"]');
    await page.waitForFunction((t) => document.querySelector('#chart-rows tbody tr td')?.textContent === t, received[20].t);
    const second = await table();
    assert(JSON.stringify(second.rows) === JSON.stringify(asCells(received.slice(20, 40))), `rows 21-40 ${JSON.stringify(second.rows.slice(0, 2))}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    const json = JSON.parse(await readFile(await download.path(), 'utf8'));
    assert(download.suggestedFilename() === 'cpu.load-rows.json', `downloaded ${download.suggestedFilename()}`);
    assert(JSON.stringify(json) === JSON.stringify(received), `the download holds ${Array.isArray(json) ? json.length : typeof json} rows, not the 240 the chart got`);
    assertNoProblems(/** @type {OpenedPage} */ (chat));
  });

  await check(C.mail, [C.chat], async () => {
    const { page } = /** @type {OpenedPage} */ (chat);
    const turn = async (/** @type {string} */ button) => {
      await page.click('#mail');
      await page.waitForSelector('#approve-allow');
      const asked = /** @type {string} */ (await page.textContent('.msg.tool[data-state="approval-requested"]'));
      await page.click(button);
      await page.waitForSelector('#mail-status[data-state="done"]');
      return { asked, status: await dataset(page, '#mail-status') };
    };
    const denied = await turn('#approve-deny');
    assert(/send_report/.test(denied.asked) && /mcp\+cache:\/\//.test(denied.asked), `the approval shown: ${denied.asked}`);
    assert(denied.status.answer === 'denied' && denied.status.mailerCalls === '0', `denied: ${JSON.stringify(denied.status)}`);
    assert(/You declined, so nothing was mailed\./.test(/** @type {string} */ (await page.textContent('.messages'))), 'the model was not told of the denial');
    const allowed = await turn('#approve-allow');
    assert(allowed.status.answer === 'allowed' && allowed.status.mailerCalls === '1' && allowed.status.mailerRows === '240',
      `allowed: ${JSON.stringify(allowed.status)}`);
    assert(/Mailed 240 readings to ops@partner\.example/.test(/** @type {string} */ (await page.textContent('.messages'))), 'the model did not report the mail');
    assertNoProblems(/** @type {OpenedPage} */ (chat));
  });

  await check(C.rowsCleared, [C.rows, C.mail], async () => {
    const { page } = /** @type {OpenedPage} */ (chat);
    await page.click('#clear');
    await page.waitForSelector('#chart-rows[data-status="missing"]');
    assert(/no longer stored/.test(/** @type {string} */ (await page.textContent('#chart-rows'))), 'the table does not say the rows are gone');
    assert((await page.$$('#chart-rows tbody tr')).length === 0, 'the cleared rows are still shown');
    assertNoProblems(/** @type {OpenedPage} */ (chat));
  });

  await check(C.worker, [C.viteBuild], async () => {
    chat ??= await openPage(`${chatUrl}/`);
    const { page } = chat;
    await page.waitForSelector('#worker-status[data-state="done"], #worker-status[data-state="error"]');
    const status = await dataset(page, '#worker-status');
    assert(status.state === 'done', `worker failed: ${status.error || status.text}`);
    assert(URI_RE.test(status.uri), `worker minted ${status.uri}`);
    assert(status.count === '240' && status.equal === 'true', `worker returned ${status.count} rows, equal=${status.equal}`);
    assert(status.pageCount === '240', `the page read ${status.pageCount} rows of the worker's reference`);
    assert(status.storage === 'indexeddb', `worker storage ${status.storage}`);
    assert(chat.workers.some((u) => /\/assets\/worker-[^/]*\.js$/.test(u)), `workers: ${chat.workers.join(', ') || 'none'}`);
    assertNoProblems(chat);
  });

  /** Opens one page of the plain-esm project (no bundler) and waits until its script is done. */
  const plainPage = async (/** @type {string} */ file) => {
    const url = await serveStatic(projects['plain-esm']);
    const page = await openPage(`${url}/${file}`);
    await page.page.waitForSelector('#status:not([data-state="running"])');
    const status = await dataset(page.page, '#status');
    assert(status.state === 'done', `${file} failed: ${status.error || status.text}`);
    return { page, status };
  };

  await check(C.plain, [C.install], async () => {
    const { page: plain, status } = await plainPage('index.html');
    assert(URI_RE.test(status.uri) && URI_RE.test(status.visibleUri), `minted ${status.uri} / ${status.visibleUri}`);
    assert(status.equal === 'true' && status.rows === '240' && status.rowsEqual === 'true',
      `round trip: equal=${status.equal}, rows=${status.rows}, rowsEqual=${status.rowsEqual}`);
    assert(status.storage === 'indexeddb', `storage ${status.storage}`);
    assert(plain.wasmResponses.some((r) => r.url.endsWith('/node_modules/mcp-result-cache/pkg/web/mcp_result_cache_bg.wasm')),
      `wasm fetched from ${plain.wasmResponses.map((r) => r.url).join(', ')}`);
    assertNoProblems(plain);
  });

  await check(C.plainServer, [C.install], async () => {
    const { page, status } = await plainPage('server.html');
    assert(status.text0 === '<cache_invalidation cause="billing.refund" domains="billing.get_*" />', `decorated ${status.text0}`);
    const fetched = page.wasmResponses.map((r) => r.url);
    assert(fetched.length === 1 && fetched[0].endsWith('/node_modules/mcp-result-cache/pkg/server-web/mcp_result_cache_bg.wasm'),
      `wasm fetched: ${fetched.join(', ')}`);
    assertNoProblems(page);
  });

  await check(C.plainLists, [C.install], async () => {
    const { page, status } = await plainPage('lists.html');
    assert(status.hit === 'true' && status.expired === 'true' && status.dropped === '1',
      `round trip: hit=${status.hit}, expired=${status.expired}, dropped=${status.dropped}`);
    assert(status.vars === '{"id":"7"}', `matchUriTemplate gave ${status.vars}`);
    assert(Number(status.hostExports) > 10 && status.hostListExports === '',
      `pkg/browser.mjs (${status.hostExports} exports) exports ${status.hostListExports}`);
    const fetched = page.wasmResponses.map((r) => r.url);
    assert(fetched.length === 1 && fetched[0].endsWith('/node_modules/mcp-result-cache/pkg/lists-web/mcp_result_cache_bg.wasm'),
      `wasm fetched: ${fetched.join(', ')}`);
    assertNoProblems(page);
  });
}

async function cleanup() {
  for (const child of children) killGroup(child);
  while (cleanups.length) {
    const fn = cleanups.shift();
    await withTimeout(Promise.resolve().then(fn), 10_000, 'cleanup').catch((e) => console.error(`  # cleanup: ${e.message}`));
  }
}

function summary() {
  const failed = results.filter((r) => !r.ok).length;
  console.error(`  # ${((Date.now() - started) / 1000).toFixed(1)} s; projects in ${relative(REPO, WORK)}/`);
  console.log(`consumers: ${results.length - failed} passed, ${failed} failed`);
  return failed;
}

let finished = false;
/** @param {{ name: string, error: unknown }} [extraFailure] a failure outside any check (whatever was thrown) */
async function finish(extraFailure) {
  if (finished) return;
  finished = true;
  clearTimeout(deadline);
  if (extraFailure) record(extraFailure.name, /** @type {Failure} */ (extraFailure.error));
  await cleanup();
  process.exit(summary() > 0 ? 1 : 0);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => finish({ name: `run: interrupted by ${signal}`, error: Object.assign(new Error('interrupted'), { detail: '' }) }));
}
const deadline = setTimeout(
  () => finish({
    name: 'run: overall deadline',
    error: Object.assign(new Error(`still running after ${DEADLINE_MS / 1000} s; later checks not run`), { detail: '' }),
  }),
  DEADLINE_MS,
);

try {
  await main();
  await finish();
} catch (error) {
  await finish({ name: 'run: unexpected error', error });
}
