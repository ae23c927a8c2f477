// The small TAP-like harness of the Playwright scripts: `ok - name` / `not ok - name: reason`
// per check (each bounded in time), then `<label>: N passed, M failed` and the exit code.
/** @param {string} label @param {{ timeoutMs?: number }} [options] */
export function checks(label, { timeoutMs = 90_000 } = {}) {
  /** @type {boolean[]} */
  const results = [];
  /** @param {string} name @param {() => unknown} fn */
  async function check(name, fn) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name}: no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([fn(), timeout]);
      results.push(true);
      console.log(`ok - ${name}`);
    } catch (error) {
      results.push(false);
      console.log(`not ok - ${name}: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`);
    } finally {
      clearTimeout(timer);
    }
  }
  function finish() {
    const passed = results.filter(Boolean).length;
    console.log(`${label}: ${passed} passed, ${results.length - passed} failed`);
    process.exitCode = passed === results.length && results.length > 0 ? 0 : 1;
  }
  return { check, finish };
}
