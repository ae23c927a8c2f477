// A stand-in for the LLM: the AI SDK's own mock language model (`ai/test`, no network), scripted
// to behave like a model turn. It only reads what a provider would send a real model (the
// prompt: the tools' JSON Schemas and each tool result's model output) and streams tool calls.
//
//   1. no tool result yet       -> call timeseries.query
//   2. one result (the rows)     -> call chart.create with `data_uri` copied from `_cache_refs.rows`
//   3. the chart's result        -> answer in text
//
// Asked to mail the readings, it calls send_report with `rows_uri`: the whole result in a few
// typed characters, which the flow policy sends to the user for approval first.
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

/** The text a model reads of a tool result's output (`text` / `error-text` / `content` parts). */
export function outputText(output) {
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'content') return output.value.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  return JSON.stringify(output.value);
}

/** The mailing turn: send the rows by reference, then tell what happened. */
function mailStep(prompt, results) {
  const lastUser = prompt.findLastIndex((m) => m.role === 'user');
  const mailed = prompt.slice(lastUser).filter((m) => m.role === 'tool')
    .flatMap((m) => m.content.filter((p) => p.type === 'tool-result' && p.toolName === 'send_report'));
  if (mailed.length === 0) {
    const series = results.find((r) => r.toolName === 'timeseries.query');
    const rows = series && JSON.parse(outputText(series.output))._cache_refs?.rows;
    if (!rows) return { text: 'There are no readings to mail yet.' };
    return { tool: 'send_report', input: { to: 'ops@partner.example', rows_uri: rows } };
  }
  const { output } = mailed.at(-1);
  if (output.type === 'execution-denied') return { text: 'You declined, so nothing was mailed.' };
  const sent = JSON.parse(outputText(output));
  return { text: sent.ok ? `Mailed ${sent.rows} readings to ${sent.to} (${sent.sent}).` : `send_report failed: ${sent.error ?? outputText(output)}` };
}

const userText = (message) => (typeof message?.content === 'string' ? message.content
  : (message?.content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join(''));

function nextStep(prompt) {
  const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result'));
  if (/^Mail/.test(userText(prompt.findLast((m) => m.role === 'user')))) return mailStep(prompt, results);
  if (results.length === 0) return { tool: 'timeseries.query', input: { metric: 'cpu.load', minutes: 240 } };
  const last = outputText(results.at(-1).output);
  if (results.length === 1) {
    const rows = JSON.parse(last)._cache_refs?.rows;
    if (!rows) return { text: `I got no reference to the rows back: ${last.slice(0, 200)}` };
    // The ready reference, copied verbatim: ~90 output characters instead of 240 re-typed rows.
    return { tool: 'chart.create', input: { title: 'cpu.load, last 4 hours', data_uri: rows } };
  }
  const chart = JSON.parse(last);
  return { text: chart.ok ? `Here is your chart (${chart.chart_id}) with ${chart.points} points.` : `chart.create failed: ${chart.error ?? last}` };
}

/** A new scripted model; `calls` records every tool call it made, as it typed it. */
export function scriptedModel() {
  const calls = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const step = nextStep(prompt);
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (step.tool) {
        const input = JSON.stringify(step.input);
        calls.push({ name: step.tool, input });
        parts.push({ type: 'tool-call', toolCallId: `call-${calls.length}`, toolName: step.tool, input });
        parts.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage });
      } else {
        parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step.text }, { type: 'text-end', id: 't' });
        parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, calls };
}
