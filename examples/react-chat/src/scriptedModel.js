// A stand-in for the LLM: it only ever reads what the model would read (the text of each tool
// result) and writes tool calls as JSON, exactly like a real model turn.

export function nextModelStep(messages) {
  const toolResults = messages.filter((m) => m.role === 'tool');
  if (toolResults.length === 0) {
    return { type: 'tool_call', name: 'timeseries.query', arguments: { metric: 'cpu.load', minutes: 240 } };
  }
  const last = JSON.parse(toolResults.at(-1).text);
  if (toolResults.length === 1) {
    const rows = last._cache_refs?.rows;
    if (!rows) {
      return { type: 'text', text: `I got no reference to the rows back: ${toolResults.at(-1).text.slice(0, 200)}` };
    }
    // The ready reference from `_cache_refs`, copied verbatim: ~90 output characters instead
    // of re-typing 240 rows.
    return {
      type: 'tool_call',
      name: 'chart.create',
      arguments: { title: 'cpu.load, last 4 hours', data_uri: rows },
    };
  }
  if (last.ok) return { type: 'text', text: `Here is your chart (${last.chart_id}) with ${last.points} points.` };
  return { type: 'text', text: `chart.create failed: ${last.error ?? toolResults.at(-1).text}` };
}
