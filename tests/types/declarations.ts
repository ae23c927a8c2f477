// The hand-written declarations (js/*.d.ts) checked against the modules they describe: every
// value a declaration names is exported by its module, every value the module exports is
// declared, and every export's type (from its JSDoc) is assignable to its declared type, except
// the few listed below, each with the reason TypeScript cannot see it (the list must be exact: an
// export that becomes assignable fails the check until it is taken off). `npx tsc -p tests/types`.
import type * as IndexDecl from '../../js/index.js';
import * as indexImpl from '../../js/src/browser.mjs';
import type * as McpClientDecl from '../../js/mcp-client.js';
import * as mcpClientImpl from '../../js/mcp-client.mjs';
import type * as AiSdkDecl from '../../js/ai-sdk.js';
import * as aiSdkImpl from '../../js/ai-sdk.mjs';
import type * as RedisDecl from '../../js/redis.js';
import * as redisImpl from '../../js/redis.mjs';
import type * as ServerDecl from '../../js/server.js';
import * as serverImpl from '../../js/src/server.mjs';
import type * as ListsDecl from '../../js/lists.js';
import * as listsImpl from '../../js/src/lists.mjs';
import type * as ConformanceDecl from '../../js/storage-conformance.js';
import * as conformanceImpl from '../../js/storage-conformance.mjs';
import type { CacheStorage } from '../../js/index.js';
import { test as nodeTest } from 'node:test';
import type * as ReactDecl from '../../js/react.js';
import * as reactImpl from '../../js/react.mjs';

/** `true` only when the two key sets are the same; otherwise the names that differ. */
type SameNames<D, I> = [Exclude<keyof D, keyof I> | Exclude<keyof I, keyof D>] extends [never]
  ? true
  : { undeclaredOrMissing: Exclude<keyof D, keyof I> | Exclude<keyof I, keyof D> };

export const names: [
  // `cacheRoute` is the Node module's only (js/node.cjs).
  SameNames<Omit<typeof IndexDecl, 'cacheRoute'>, typeof indexImpl>,
  SameNames<typeof McpClientDecl, typeof mcpClientImpl>,
  SameNames<typeof AiSdkDecl, typeof aiSdkImpl>,
  SameNames<typeof RedisDecl, typeof redisImpl>,
  SameNames<typeof ServerDecl, typeof serverImpl>,
  SameNames<typeof ListsDecl, typeof listsImpl>,
  SameNames<typeof ReactDecl, typeof reactImpl>,
] = [true, true, true, true, true, true, true];

export const mcpClient: typeof McpClientDecl.wrapMcpClient = mcpClientImpl.wrapMcpClient;
export const clientToolSet: typeof AiSdkDecl.clientToolSet = aiSdkImpl.clientToolSet;
export const pageReferencePayloads: typeof AiSdkDecl.pageReferencePayloads = aiSdkImpl.pageReferencePayloads;
export const cacheToolSet: typeof AiSdkDecl.cacheToolSet = aiSdkImpl.cacheToolSet;
export const defaultPrefix: typeof RedisDecl.DEFAULT_PREFIX = redisImpl.DEFAULT_PREFIX;
export const ready: typeof IndexDecl.ready = indexImpl.ready;
export const serverReady: typeof ServerDecl.ready = serverImpl.ready;
export const listsReady: typeof ListsDecl.ready = listsImpl.ready;
export const conformanceNames: SameNames<typeof ConformanceDecl, typeof conformanceImpl> = true;
export const storageConformance: typeof ConformanceDecl.storageConformance = conformanceImpl.storageConformance;
/** node:test's own `test` is a `TestFunction`, as the documented `storageConformance(make, { test })` passes it. */
export const nodeTestFits: ConformanceDecl.TestFunction = nodeTest;
export const redisStorage: typeof RedisDecl.redisStorage = redisImpl.redisStorage;
/** `redisStorage` answers the storage contract. */
export const redisIsStorage = (client: object): CacheStorage => redisImpl.redisStorage(client);
export const referencesOf: typeof IndexDecl.referencesOf = indexImpl.referencesOf;
// The hooks' data is `unknown` in the JSDoc (the declarations let a caller name its type).
export const useCachedResult: (uriOrOutput: unknown, options?: ReactDecl.UseCachedResultOptions) => ReactDecl.CachedResult<unknown> = reactImpl.useCachedResult;
export const useCacheEntries: (convId?: string | number) => ReactDecl.CachedResult<unknown> = reactImpl.useCacheEntries;
export const ResultCacheProvider: (props: ReactDecl.ResultCacheProviderProps) => unknown = reactImpl.ResultCacheProvider;

// `cacheToolApproval` answers what `streamText`'s `toolApproval` takes, with the host's own
// configuration in either form (type-checked only, never run).
import { streamText, type LanguageModel, type ToolSet } from 'ai';
declare const approvalModel: LanguageModel;
declare const approvalTools: ToolSet;
declare const cacheToolApproval: typeof AiSdkDecl.cacheToolApproval;
export const toolApprovalTyped = [
  streamText({ model: approvalModel, tools: approvalTools, prompt: 'x', toolApproval: cacheToolApproval(approvalTools) }),
  streamText({ model: approvalModel, tools: approvalTools, prompt: 'x', toolApproval: cacheToolApproval(approvalTools, { a: 'approved' }) }),
  streamText({ model: approvalModel, tools: approvalTools, prompt: 'x', toolApproval: cacheToolApproval(approvalTools, () => 'denied') }),
];

/** The exports of `I` whose type is not assignable to the one `D` declares. */
type Unassignable<D, I> = { [K in keyof D & keyof I]: I[K] extends D[K] ? never : K }[keyof D & keyof I];
/** `true` only when the two unions are the same; otherwise the names that differ. */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : { unexpected: Exclude<B, A> }) : { unexpected: Exclude<A, B> };

export const types: [
  // `ResultCache`: its methods are installed from the WebAssembly class's by a static block.
  // `augmentTools`: one JS function for the declaration's two overloads (array, tools/list result).
  Exactly<Unassignable<typeof IndexDecl, typeof indexImpl>, 'ResultCache' | 'augmentTools'>,
  Exactly<Unassignable<typeof McpClientDecl, typeof mcpClientImpl>, never>,
  // The declarations are generic over the host's ToolSet and the AI SDK's own types (what
  // `streamText` checks, above); the JSDoc takes any object of tools and answers plain objects.
  Exactly<Unassignable<typeof AiSdkDecl, typeof aiSdkImpl>, 'cacheToolApproval' | 'wrapAiSdkTools' | 'toModelOutput'>,
  Exactly<Unassignable<typeof RedisDecl, typeof redisImpl>, never>,
  // `StateSync`: the browser class gets `[Symbol.dispose]` where the platform has the symbol (as
  // `ResultCache`), which a JSDoc class cannot declare.
  Exactly<Unassignable<typeof ServerDecl, typeof serverImpl>, 'StateSync'>,
  Exactly<Unassignable<typeof ListsDecl, typeof listsImpl>, never>,
  Exactly<Unassignable<typeof ConformanceDecl, typeof conformanceImpl>, never>,
  // The hooks' data is `unknown` in the JSDoc; the declarations let a caller name its type
  // (checked above with `unknown` data).
  Exactly<Unassignable<typeof ReactDecl, typeof reactImpl>, 'useCachedResult' | 'useCacheEntries'>,
] = [true, true, true, true, true, true, true, true];

// `consumeOnce`: always there on the Node entry's caches (the documented call needs no guard);
// optional on the browser build's, whose caches leave it out.
import type { ResultCache as NodeResultCache } from '../../pkg/node/mcp_result_cache.js';
import type { ResultCache as WebResultCache } from '../../pkg/web/mcp_result_cache.js';
export const consumeOnceOnNode = (cache: NodeResultCache): Promise<boolean> => cache.consumeOnce('approval', 60_000);
export const consumeOnceInBrowser = (cache: WebResultCache): Promise<boolean> | undefined => cache.consumeOnce?.('approval', 60_000);

// `redisStorage` takes the clients users have, as their own libraries type them: node-redis's
// client and cluster, ioredis's `Redis` and `Cluster` (type-checked only, never run).
import type { createClient, createCluster } from 'redis';
import type { Cluster, Redis } from 'ioredis';
export const redisClientsTyped = (
  nodeRedis: ReturnType<typeof createClient>,
  nodeRedisCluster: ReturnType<typeof createCluster>,
  ioredis: Redis,
  ioredisCluster: Cluster,
): RedisDecl.RedisClientLike[] => [nodeRedis, nodeRedisCluster, ioredis, ioredisCluster];
