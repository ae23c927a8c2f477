// The package as npm delivers it: `npm pack`, its install into fresh projects, what it contains.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXAMPLE, FIXTURES, PACKAGE, WORK } from './config.mjs';
import { C } from './check-names.mjs';
import { assert, check } from './harness.mjs';
import { npmEnv, run } from './processes.mjs';
import { createProject, exportTargets, installTarball, listFiles, projects, setTarball, writeManifest } from './projects.mjs';

/** The check `C.pack`. */
async function packTarball() {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', join(WORK, 'pack')], { env: npmEnv() });
  const [info] = JSON.parse(stdout);
  const tarball = join(WORK, 'pack', info.filename);
  setTarball(tarball);
  assert((await stat(tarball)).size > 0, 'empty tarball');
}

/** The check `C.install`. */
async function installProjects() {
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
}

/** The check `C.contents`. */
async function packageContents() {
  const root = join(projects['node-esm'], 'node_modules', PACKAGE);
  const files = await listFiles(root);
  const forbidden = files.filter((f) => /^(src|target|tests|node_modules|www|scripts|examples|\.tmp)\//.test(f) || /\.(rs|tgz)$/.test(f));
  assert(forbidden.length === 0, `unexpected files: ${forbidden.slice(0, 5).join(', ')}`, forbidden.join('\n'));
  for (const f of ['pkg/web/mcp_result_cache_bg.wasm', 'pkg/node/mcp_result_cache_bg.wasm', 'pkg/web/mcp_result_cache.d.ts', 'js/index.d.ts',
    'pkg/server-web/mcp_result_cache_bg.wasm', 'pkg/server-node/mcp_result_cache_bg.wasm', 'pkg/server-web/mcp_result_cache.d.ts', 'js/server.d.ts',
    'pkg/lists-web/mcp_result_cache_bg.wasm', 'pkg/lists-node/mcp_result_cache_bg.wasm', 'pkg/lists-web/mcp_result_cache.d.ts', 'js/lists.d.ts',
    // Imported by pkg/browser.mjs on first use, through no `exports` entry.
    'pkg/readback.mjs', 'pkg/warm-up.mjs']) {
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
}

/** Packs the tarball, installs it into the consumer projects and checks what it holds. */
export async function packageChecks() {
  await check(C.pack, [], packTarball);
  await check(C.install, [C.pack], installProjects);
  await check(C.contents, [C.install], packageContents);
}
