// Where the consumer tests find the repository and put their projects, and how long they wait.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const FIXTURES = join(REPO, 'tests/consumers/fixtures');
export const EXAMPLE = join(REPO, 'examples/react-chat');
export const WORK = join(REPO, '.tmp/consumers');
export const ROOT_MODULES = join(REPO, 'node_modules');
export const PACKAGE = 'mcp-result-cache';
export const URI_RE = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}$/;
export const STEP_MS = 60_000; // any single check
export const WAIT_MS = 30_000; // any single browser wait
export const DEADLINE_MS = 600_000; // the whole run, whatever happens (above the README check's own 500 s)
export const TSC = join(ROOT_MODULES, 'typescript/bin/tsc');
