// `mcp-result-cache/ai-sdk` for browsers, workers and bundlers: the by-reference pipeline around
// AI SDK tools (`ai`, an optional peer dependency).
import { augmentTools, cacheTools, ready } from '../pkg/browser.mjs';
import { createAiSdk, toModelOutput } from './ai-sdk-core.mjs';

export const { wrapAiSdkTools, clientToolSet, cacheToolSet } = createAiSdk({ augmentTools, cacheTools, ready });
export { toModelOutput };
// The references a tool part or its `output` carries (js/references.mjs).
export { referencesOf } from './references.mjs';
export { pageReferencePayloads } from './page-references.mjs';
