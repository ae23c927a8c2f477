// zod probes `new Function("")` when it builds object schemas, to decide whether it may compile
// fast parsers; under the demo page's CSP (no 'unsafe-eval') that probe is a reported
// violation. Imported first by www/mcp-sdk.src.mjs, before any SDK module builds a schema.
import { config } from 'zod/v4/core';

config({ jitless: true });
