// The README is the page npm shows, and the package ships no docs/: every option of the
// integrations, as their declarations list them, is named in it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const read = (/** @type {string} */ file) => readFile(new URL(`../../${file}`, import.meta.url), 'utf8');

/**
 * The property names of `interface <name> { … }` in a declaration file.
 * @param {string} dts
 * @param {string} name
 * @returns {string[]}
 */
function optionsOf(dts, name) {
  const body = new RegExp(`interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(dts)?.[1];
  assert.ok(body, `interface ${name} not found`);
  return [...body.matchAll(/^ {2}(?:readonly )?([A-Za-z]+)\??:/gm)].map((m) => m[1]);
}

test('the README names every option of wrapMcpClient and wrapAiSdkTools', async () => {
  const readme = await read('README.md');
  const files = { 'js/mcp-client.d.ts': 'WrapMcpClientOptions', 'js/ai-sdk.d.ts': 'WrapAiSdkToolsOptions' };
  for (const [file, name] of Object.entries(files)) {
    const options = optionsOf(await read(file), name);
    assert.ok(options.length >= 5, `${name}: ${options}`);
    const missing = options.filter((option) => !new RegExp(`\\b${option}\\b`).test(readme));
    assert.deepEqual(missing, [], `${name} options missing from README.md`);
  }
});
