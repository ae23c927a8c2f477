// The flow policy (docs/SECURITY.md): which server's data a reference may carry into which
// server's tool call. One home for the rule: the checks of a `flows` value, the grouping of a
// call's resolved references into flows, and the decision of each, pure (a function policy may
// answer with a promise). js/tool-pipeline.mjs applies it before dispatch; the `ResultCache`
// constructor checks its own `flows` option with it (js/src/cache-flows.mjs).

/** The named policies. */
export const FLOW_MODES = ['any', 'same-server', 'guarded'];

/** What a bad `flows` value is told, after the name of who was given it. */
const FLOWS_TYPE = 'flows must be "any", "same-server", "guarded", { server: [servers] | "*" } or a function';

/** Every server (as a key: any other source; as a value: any target). */
const ANY_SERVER = '*';

/**
 * A resolved reference's source, as `beforeToolCall` reports it.
 * @typedef {{ uri: string, sourceToolName: string, sourceServer?: string }} Source
 */
/**
 * The data of one server's tool moving into one call.
 * @typedef {{ from: string | null, to: string | null, toolName: string, sourceToolName: string, uris: string[], annotations: Record<string, unknown> }} Flow
 */
/** A verdict: `"allow"`, `"deny"` or `"ask"` (a function policy may answer anything). @typedef {string} Verdict */
/** A checked object policy: source → `"*"` or a `Set` of targets. @typedef {{ table: Map<string, string | Set<string>> }} TablePolicy */
/** A host's function policy. @typedef {(flow: Flow) => Verdict | Promise<Verdict>} FlowFunction */
/** A checked policy. @typedef {string | FlowFunction | TablePolicy} FlowPolicy */

/**
 * The frozen copies `keptFlows` made → their checked policy (nobody can change a copy, so its
 * policy stands; a caller's own object is checked afresh each time, as it is then).
 * @type {WeakMap<object, TablePolicy>}
 */
const compiled = new WeakMap();

/**
 * Checks a `flows` value and answers the policy to apply: a mode string, a function, or a
 * snapshot of an object as it is now (later changes to the caller's object do not count).
 * `undefined` is `"any"`. A bad value is a `TypeError` whose message starts with `who`.
 * @param {unknown} value
 * @param {string} who
 * @returns {FlowPolicy}
 */
export function checkFlows(value, who) {
  if (value === undefined) return 'any';
  if (typeof value === 'string' && FLOW_MODES.includes(value)) return value;
  if (typeof value === 'function') return /** @type {FlowFunction} */ (value);
  if (value !== null && typeof value === 'object') {
    const known = compiled.get(value);
    if (known) return known;
    /** @type {Map<string, string | Set<string>>} */
    const table = new Map();
    try {
      // A plain object only: a Map, an array or a Date would read as an empty table.
      if (Object.prototype.toString.call(value) !== '[object Object]') throw 0;
      for (const source of Object.keys(value)) {
        const targets = /** @type {Record<string, unknown>} */ (value)[source];
        if (targets === ANY_SERVER) table.set(source, ANY_SERVER);
        else if (Array.isArray(targets) && targets.every((t) => typeof t === 'string')) table.set(source, new Set(targets));
        else throw 0;
      }
    } catch {
      throw new TypeError(`${who}: ${FLOWS_TYPE}`);
    }
    return { table };
  }
  throw new TypeError(`${who}: ${FLOWS_TYPE}`);
}

/**
 * The `flows` value a cache keeps of its option, checked (a `TypeError` as `checkFlows` says):
 * an object policy as a frozen copy of it as it is now (its lists frozen too), whose checked
 * policy is remembered; any other value as given. A change the caller makes to its object later
 * changes neither this cache's policy nor another's made from the same object.
 * @param {unknown} value
 * @param {string} who
 * @returns {unknown}
 */
export function keptFlows(value, who) {
  const policy = checkFlows(value, who);
  if (typeof policy !== 'object') return value;
  const copy = Object.freeze(Object.fromEntries([...policy.table].map(([source, to]) => [source, typeof to === 'string' ? to : Object.freeze([...to])])));
  compiled.set(copy, policy);
  return copy;
}

/**
 * The flows of one call: its resolved references (`sources`, as `beforeToolCall` reports them:
 * `{ uri, sourceToolName, sourceServer? }`) grouped by the server and tool they come from, each
 * `{ from, to, toolName, sourceToolName, uris, annotations }` (`from`/`to`: server names, `null`
 * when unknown; `annotations`: the called tool's MCP annotations, `{}` when it has none).
 * @param {Source[]} sources
 * @param {string | null | undefined} to
 * @param {string} toolName
 * @param {Record<string, unknown> | null | undefined} annotations
 * @returns {Flow[]}
 */
export function flowsOf(sources, to, toolName, annotations) {
  /** @type {Map<string, Flow>} */
  const groups = new Map();
  for (const { uri, sourceToolName, sourceServer } of sources) {
    const from = typeof sourceServer === 'string' ? sourceServer : null;
    const key = JSON.stringify([from, sourceToolName]);
    let flow = groups.get(key);
    if (!flow) {
      flow = { from, to: to ?? null, toolName, sourceToolName, uris: [], annotations: annotations ?? {} };
      groups.set(key, flow);
    }
    if (!flow.uris.includes(uri)) flow.uris.push(uri);
  }
  return [...groups.values()];
}

/**
 * `"allow"`, `"deny"` or `"ask"`: the built-in rule for one flow (a checked, non-function policy).
 * @param {string | TablePolicy} policy
 * @param {Pick<Flow, 'from' | 'to' | 'annotations'>} flow
 * @returns {Verdict}
 */
export function decideFlow(policy, { from, to, annotations }) {
  if (policy === 'any') return 'allow';
  // A reference into a call to the server that produced it moves nothing anywhere new.
  if (from !== null && from === to) return 'allow';
  if (policy === 'same-server') return 'deny';
  // MCP's default for a tool without the hint is open-world (it may reach anything).
  if (policy === 'guarded') return annotations?.openWorldHint === false ? 'allow' : 'ask';
  const { table } = /** @type {TablePolicy} */ (policy);
  const targets = from !== null && table.has(from) ? table.get(from) : table.get(ANY_SERVER);
  if (targets === ANY_SERVER) return 'allow';
  return targets !== undefined && to !== null && /** @type {Set<string>} */ (targets).has(to) ? 'allow' : 'deny';
}

/**
 * The decision of every flow of a call: `{ deny, ask }`, the flows of each verdict (both empty:
 * allowed). A function policy is called once a flow (it may answer a promise); anything but
 * `"allow"` or `"ask"` is `"deny"`, and its rejection rejects this (the call is not dispatched).
 * @param {FlowPolicy} policy
 * @param {Flow[]} flows
 * @returns {Promise<{ deny: Flow[], ask: Flow[] }>}
 */
export async function judgeFlows(policy, flows) {
  /** @type {Flow[]} */
  const deny = [];
  /** @type {Flow[]} */
  const ask = [];
  for (const flow of flows) {
    const verdict = typeof policy === 'function' ? await policy({ ...flow, uris: [...flow.uris] }) : decideFlow(policy, flow);
    if (verdict === 'ask') ask.push(flow);
    else if (verdict !== 'allow') deny.push(flow);
  }
  return { deny, ask };
}

const serverName = (/** @type {string | null} */ name) => (name === null ? 'a server the host did not name' : JSON.stringify(name));

/**
 * The envelope of a call the policy (or the user, `declined`) kept from referenced data, in the
 * package's usual shape: `{ error: "reference_not_allowed", fix_hint, _refused_uris }`.
 * @param {string} toolName
 * @param {Flow[]} refused
 * @param {boolean} declined
 */
export function refusedEnvelope(toolName, refused, declined) {
  const to = serverName(refused[0].to);
  const from = [...new Set(refused.map((f) => f.from))].map(serverName).join(', ');
  const why = declined ? 'The user declined to let' : 'The host does not let';
  return {
    error: 'reference_not_allowed',
    fix_hint: `${why} data from ${from} reach ${to} (tool ${toolName}): call ${toolName} without these references, and do not copy the data into its arguments by hand; tell the user what you wanted to send where.`,
    _refused_uris: refused.flatMap((f) => f.uris),
  };
}
