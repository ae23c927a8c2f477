// The plain objects the IndexedDB store writes, each built by one call from WebAssembly instead
// of one boundary crossing per property (field names: docs/PROTOCOL.md, *Storage*), and the
// one transaction overload web-sys does not expose. The builders cannot throw: they make fresh
// objects, or read rows that are structured clones (data properties only) or this package's own
// objects.

// A cache record as stored in `results` (a stale cause is added by the caller when there is one).
export function mcpCacheRecord(uri, payload, convId, sourceToolName, addedAt, sizeBytes, lastUsedAt) {
  return { uri, payload, convId, sourceToolName, addedAt, sizeBytes, lastUsedAt };
}

// The `usage` row of a stored record: a record written by chatbox-core has no `lastUsedAt` (its
// `addedAt` stands in), may lack a numeric size, and may lack a tool name (reads report it as
// "<unknown>", and so does the row: invalidation finds entries by it).
export function mcpCacheUsageRow(record) {
  const number = (value) => (typeof value === 'number' ? value : undefined);
  const tool = record.sourceToolName;
  return {
    uri: record.uri,
    convId: record.convId,
    sizeBytes: number(record.sizeBytes) ?? 0,
    lastUsedAt: number(record.lastUsedAt) ?? number(record.addedAt) ?? 0,
    sourceToolName: typeof tool === 'string' ? tool : '<unknown>',
  };
}

// The store-wide totals row (`perConversation`: the per-conversation rows are kept alongside).
export function mcpCacheTotalsRow(bytes, entries) {
  return { bytes, entries, perConversation: true };
}

// A per-conversation totals row.
export function mcpCacheConversationRow(bytes, entries, irregular) {
  return { bytes, entries, irregular };
}

// `db.transaction(storeNames, "readwrite", { durability: "relaxed" })` (throws what it throws:
// the import catches).
export function mcpCacheRelaxedWrite(db, storeNames) {
  return db.transaction(storeNames, 'readwrite', { durability: 'relaxed' });
}
