// One version everywhere: package.json (what npm publishes), Cargo.toml and Cargo.lock (the
// crate the .wasm is built from) and the CHANGELOG's newest release agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const read = (/** @type {string} */ file) => readFile(new URL(`../../${file}`, import.meta.url), 'utf8');

test('package.json, Cargo.toml, Cargo.lock and the newest CHANGELOG release name one version', async () => {
  const npm = JSON.parse(await read('package.json')).version;
  const cargo = /^\[package\][^[]*?^version = "([^"]+)"/ms.exec(await read('Cargo.toml'))?.[1];
  const lock = /\[\[package\]\]\nname = "mcp-result-cache"\nversion = "([^"]+)"/.exec(await read('Cargo.lock'))?.[1];
  const changelog = await read('CHANGELOG.md');
  const released = /^## \[?(\d+\.\d+\.\d+)\]?/m.exec(changelog)?.[1];
  assert.match(npm, /^\d+\.\d+\.\d+$/, 'package.json has a release version');
  assert.equal(cargo, npm, 'Cargo.toml [package] version');
  assert.equal(lock, npm, 'Cargo.lock (run cargo once after changing Cargo.toml)');
  assert.equal(released, npm, 'the newest "## X.Y.Z" of CHANGELOG.md');
  // Unreleased work sits above it, never between releases.
  assert.ok(changelog.indexOf('## [Unreleased]') < changelog.indexOf(`## ${npm}`), 'Unreleased comes first');
});

test('engines names the Node versions that load the Node entries: require() of ES modules (20.19+, 22.12+), and this Node is one', async () => {
  const pkg = JSON.parse(await read('package.json'));
  assert.equal(pkg.engines.node, '^20.19.0 || >=22.12.0');
  const [major, minor] = process.versions.node.split('.').map(Number);
  assert.ok((major === 20 && minor >= 19) || major > 22 || (major === 22 && minor >= 12), process.versions.node);
  // The Node entries' WebAssembly glue requires its ES-module snippets: what needs that support.
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, ['--no-experimental-require-module', '-e', 'try { require("./js/node.cjs"); console.log("loaded") } catch (e) { console.log(e.name) }'], { cwd: new URL('../..', import.meta.url), encoding: 'utf8' });
  assert.equal(out.trim(), 'SyntaxError', 'without require(esm) the entry does not load, which is why engines says so');
});
