// How every Playwright script here starts Chromium: Debian's /usr/bin/chromium (never a
// downloaded browser), headless, as root, with the flags that keep it off the network.
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** `playwright-core` launch options for a headless Chromium. */
export function chromiumOptions(extra = {}) {
  return { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, ...extra };
}
