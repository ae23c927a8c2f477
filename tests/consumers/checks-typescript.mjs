// The TypeScript consumers: the declarations against the modules, tsc under each module
// resolution, the compiled consumer run, and no `any` in what ships.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { PACKAGE, REPO, STEP_MS, TSC, URI_RE } from './config.mjs';
import { C } from './check-names.mjs';
import { anyTypesIn, declaredExports, importedNames } from './declarations.mjs';
import { assert, check } from './harness.mjs';
import { lastJsonLine, node } from './processes.mjs';
import { listFiles, projects } from './projects.mjs';

/** @typedef {import('./harness.mjs').Failure} Failure */

const installedRoot = () => join(projects.typescript, 'node_modules', PACKAGE);

/** The check `C.tsExports`. */
async function tsEveryExport() {
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
}

/** The check `C.listsNotInHost`. */
async function listsNotInHost() {
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
}

/** The check `C.tsc`. */
async function tscStrict() {
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
}

/** The check `C.tsRun`. */
async function tsRun() {
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
}

/** The check `C.tsDocumented`. */
async function tsDocumented() {
  await node([TSC, '-p', 'tsconfig.documented.json', '--pretty', 'false'], { cwd: projects.typescript }).catch((/** @type {Failure} */ error) => {
    const errors = error.detail?.split('\n').filter((l) => /error TS/.test(l)) ?? [];
    if (errors.length) error.message = `${errors.length} documented call(s) rejected, e.g. ${errors[0]}`;
    throw error;
  });
}

/** The check `C.tsNode16`. */
async function tsNode16() {
  await node([TSC, '-p', 'tsconfig.node16.json', '--pretty', 'false'], { cwd: projects.typescript }).catch((/** @type {Failure} */ error) => {
    const errors = error.detail?.split('\n').filter((l) => /error TS/.test(l)) ?? [];
    if (errors.length) error.message = `${errors.length} type error(s), e.g. ${errors[0]}`;
    throw error;
  });
}

/** The check `C.tsNodeNext`. */
async function tsNodeNext() {
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
}

/** The check `C.tsAiSdk`. */
async function tsAiSdk() {
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
}

/** The check `C.noAny`. */
async function noAny() {
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
}

/** Type-checks and runs the TypeScript consumers against the installed declarations. */
export async function typescriptChecks() {
  await check(C.tsExports, [C.install], tsEveryExport);
  await check(C.listsNotInHost, [C.install], listsNotInHost);
  await check(C.tsc, [C.install], tscStrict);
  await check(C.tsRun, [C.tsc], tsRun);
  await check(C.tsDocumented, [C.install], tsDocumented);
  await check(C.tsNode16, [C.install], tsNode16);
  await check(C.tsNodeNext, [C.install], tsNodeNext);
  await check(C.tsAiSdk, [C.install], tsAiSdk);
  await check(C.noAny, [C.install], noAny);
}
