// A stand-in for the LLM: the AI SDK's own mock language model (`ai/test`, no network), scripted
// from what a provider would send a real model (the prompt: messages, tool calls and each tool
// result's model output). Per user message:
//
//   "query …" -> call timeseries.query; once its result is in, answer in text
//   "chart …" -> call chart.create with `data_uri` copied from the last `_cache_refs.rows` of an
//                earlier tool result (possibly made by another instance); then answer in text
//   "thanks"  -> answer in text
//   "backfill …" -> call timeseries.backfill; then answer in text
//   "… local …" -> call sensors.read (a tool of the page), then chart.create with `data_uri` copied
//                from its `_cache_refs.rows` (a reference minted in the page); then answer in text
import { randomUUID } from 'node:crypto';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

/**
 * @import { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4StreamPart, LanguageModelV4ToolResultOutput, LanguageModelV4ToolResultPart, LanguageModelV4Usage } from '@ai-sdk/provider'
 */

/** @type {LanguageModelV4Usage} */
const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

/**
 * The text a model reads of a tool result's output (`text` / `error-text` / `content` parts, a
 * denied call's reason, JSON of the rest).
 * @param {LanguageModelV4ToolResultOutput} output
 * @returns {string}
 */
function outputText(output) {
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'content') return output.value.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  if (output.type === 'execution-denied') return `denied${output.reason ? `: ${output.reason}` : ''}`;
  return JSON.stringify(output.value);
}

/** @type {(message: LanguageModelV4Message | undefined) => string} */
const userText = (message) => (typeof message?.content === 'string' ? message.content
  : (message?.content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join(''));

/** @type {(messages: LanguageModelV4Prompt) => LanguageModelV4ToolResultPart[]} */
const toolResults = (messages) => messages.filter((m) => m.role === 'tool')
  .flatMap((m) => m.content.filter((p) => p.type === 'tool-result'));

/** @type {(text: string) => ScriptedJson | null} */
const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/**
 * What a tool result's JSON text may hold that the script reads (`chart.create`'s answer, a
 * truncation summary's reference and ready references).
 * @typedef {{ ok?: boolean, chart_id?: string, points?: number, _cache_uri?: string, _cache_refs?: { rows?: string } }} ScriptedJson
 */

/**
 * One step of the script: a tool call to make, or the text to answer (tool names are never empty,
 * so a step without a truthy `tool` has `text`).
 * @typedef {{ tool: string, input: Record<string, unknown>, text?: undefined } | { text: string, tool?: undefined, input?: undefined }} ScriptedStep
 */

/**
 * @param {LanguageModelV4Prompt} prompt
 * @returns {ScriptedStep}
 */
function nextStep(prompt) {
  const lastUser = prompt.findLastIndex((m) => m.role === 'user');
  const ask = userText(prompt[lastUser]);
  const earlier = toolResults(prompt.slice(0, lastUser));
  const thisTurn = toolResults(prompt.slice(lastUser));
  if (/backfill/i.test(ask)) {
    if (!thisTurn.some((r) => r.toolName === 'timeseries.backfill')) return { tool: 'timeseries.backfill', input: { metric: 'cpu.load' } };
    return { text: 'The series was backfilled: the rows stored earlier are out of date; ask me to query it again.' };
  }
  if (/local/i.test(ask)) {
    const drawn = thisTurn.findLast((r) => r.toolName === 'chart.create');
    if (drawn) {
      const chart = parse(outputText(drawn.output));
      return { text: chart?.ok ? `Here is your chart (${chart.chart_id}) of this browser's readings with ${chart.points} points.` : `chart.create failed: ${outputText(drawn.output).slice(0, 200)}` };
    }
    const read = thisTurn.findLast((r) => r.toolName === 'sensors.read');
    if (!read) return { tool: 'sensors.read', input: {} };
    const rows = parse(outputText(read.output))?._cache_refs?.rows;
    if (!rows) return { text: `sensors.read answered: ${outputText(read.output).slice(0, 200)}` };
    return { tool: 'chart.create', input: { title: 'this browser', data_uri: rows } };
  }
  if (/chart/i.test(ask)) {
    const drawn = thisTurn.findLast((r) => r.toolName === 'chart.create');
    if (drawn) {
      const chart = parse(outputText(drawn.output));
      return { text: chart?.ok ? `Here is your chart (${chart.chart_id}) with ${chart.points} points.` : `chart.create failed: ${outputText(drawn.output).slice(0, 200)}` };
    }
    // The ready reference of the rows, copied verbatim: ~90 characters instead of 240 rows.
    const rows = earlier.map((r) => parse(outputText(r.output))?._cache_refs?.rows).findLast(Boolean);
    if (!rows) return { text: 'There is nothing to chart yet: ask me to query the series first.' };
    return { tool: 'chart.create', input: { title: 'cpu.load, last 4 hours', data_uri: rows } };
  }
  if (/query/i.test(ask)) {
    const answered = thisTurn.findLast((r) => r.toolName === 'timeseries.query');
    if (!answered) return { tool: 'timeseries.query', input: { metric: 'cpu.load', minutes: 240 } };
    const out = parse(outputText(answered.output));
    return { text: out?._cache_uri ? `I have the series; its rows are stored as ${out._cache_uri}.` : `timeseries.query answered: ${outputText(answered.output).slice(0, 200)}` };
  }
  if (/thank/i.test(ask)) return { text: 'You are welcome.' };
  return { text: 'Say "query the series", then "chart it".' };
}

/**
 * A tool call the scripted model made: the tool, its input as the model typed it (JSON), and the
 * size of the prompt it was made from.
 * @typedef {{ tool: string, input: string, promptChars: number }} ScriptedCall
 */

/**
 * A new scripted model; `calls` records every tool call it made, as it typed it.
 * @returns {{ model: MockLanguageModelV4, calls: ScriptedCall[] }}
 */
export function scriptedModel() {
  /** @type {ScriptedCall[]} */
  const calls = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const step = nextStep(prompt);
      /** @type {LanguageModelV4StreamPart[]} */
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (step.tool) {
        const input = JSON.stringify(step.input);
        calls.push({ tool: step.tool, input, promptChars: JSON.stringify(prompt).length });
        parts.push({ type: 'tool-call', toolCallId: `call-${randomUUID()}`, toolName: step.tool, input });
        parts.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage });
      } else {
        parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: /** @type {string} */ (step.text) }, { type: 'text-end', id: 't' });
        parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, calls };
}
