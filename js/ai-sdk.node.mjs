// `mcp-result-cache/ai-sdk` for Node: the by-reference pipeline around AI SDK tools.
import { augmentTools, cacheTools, ready } from '../pkg/node.mjs';
import { createAiSdk, toModelOutput } from './ai-sdk-core.mjs';

export const { wrapAiSdkTools, clientToolSet, cacheToolSet } = createAiSdk({ augmentTools, cacheTools, ready });
export { toModelOutput };
// The references a tool part or its `output` carries (js/references.mjs).
export { referencesOf } from './references.mjs';
export { pageReferencePayloads } from './page-references.mjs';
