// `mcp-result-cache/ai-sdk` for Node: the by-reference pipeline around AI SDK tools.
import { augmentTools, ready } from './node.mjs';
import { createAiSdk, toModelOutput } from './ai-sdk-core.mjs';

export const { wrapAiSdkTools, clientToolSet } = createAiSdk({ augmentTools, ready });
export { toModelOutput };
