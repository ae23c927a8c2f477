// A stand-in for the LLM (the AI SDK's mock model, no network) that reads only what a provider
// sends a real model: "query …" -> timeseries.query; "chart …" -> chart.create with `data_uri`
// copied from the earlier result's `_cache_refs.rows` (~90 typed characters instead of 240
// rows); after a tool result -> a short answer. `calls` records every tool call as it typed it.
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
const text = (output) => (output.type === 'text' || output.type === 'error-text' ? output.value
  : output.type === 'content' ? output.value.filter((p) => p.type === 'text').map((p) => p.text).join('\n') : JSON.stringify(output.value));
const userText = (m) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join(''));

function nextStep(prompt) {
  const lastUser = prompt.findLastIndex((m) => m.role === 'user');
  const results = (messages) => messages.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result'));
  const thisTurn = results(prompt.slice(lastUser));
  if (thisTurn.length > 0) return { text: `Done: ${text(thisTurn.at(-1).output).slice(0, 300)}` };
  if (/^query/i.test(userText(prompt[lastUser]))) return { tool: 'timeseries.query', input: { metric: 'cpu.load', minutes: 240 } };
  const earlier = results(prompt.slice(0, lastUser)).filter((r) => r.toolName === 'timeseries.query');
  const rows = earlier.length > 0 ? JSON.parse(text(earlier.at(-1).output))._cache_refs?.rows : undefined;
  if (!rows) return { text: 'There is nothing to chart yet: query the series first.' };
  return { tool: 'chart.create', input: { title: 'cpu.load, last 4 hours', data_uri: rows } };
}

export function scriptedModel() {
  const calls = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const step = nextStep(prompt);
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (step.tool) {
        const input = JSON.stringify(step.input);
        calls.push({ name: step.tool, input });
        parts.push({ type: 'tool-call', toolCallId: `call-${Date.now()}-${calls.length}`, toolName: step.tool, input });
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
