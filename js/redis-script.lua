-- The one script behind `redisStorage` (js/redis.cjs; docs/REDIS.md). Every call works on ONE
-- bucket: the four keys of one conversation (its URI segment), which share the hash tag of that
-- segment and so one hash slot, wherever it lives in a Redis Cluster:
--   KEYS[1] <prefix>{<segment>}:rows   hash   b = bytes, e = entries, f = fresh entries,
--                                             c = the conversation (its JSON; '*' once ids of
--                                             two conversations have shared the segment: a
--                                             clear of one cannot tell, in bounded work, that
--                                             no other is left),
--                                             n = the number of the conversation's last write,
--                                             x = the number of a write whose evictions are
--                                             under way (absent when none is),
--                                             p:<uri> payload JSON, m:<uri> the row's other fields
--                                             (JSON), z:<uri> size, s:<uri> stale cause (JSON),
--                                             n:<uri> the number of the write that stored it
--                                             (absent in rows of earlier versions: 0)
--   KEYS[2] <prefix>{<segment>}:lru    zset   uri -> lastUsedAt (eviction order; ties by uri)
--   KEYS[3] <prefix>{<segment>}:added  zset   uri -> addedAt (evictOlderThan)
--   KEYS[4] <prefix>{<segment>}:fresh  hash   uri -> sourceToolName JSON, fresh entries only
-- ARGV[1] = operation, ARGV[2] = TTL in ms (0: none), the rest per operation.
-- Bounded work: no call touches more than the batch size it is given (ARGV, at most 512) of
-- entries, except a read (the URIs asked for) and a clear of a whole conversation (UNLINK: the
-- memory is freed off the main thread). Work left over is answered as `more`; the caller calls
-- again. Nothing here walks other conversations; expiry is Redis's own (PEXPIRE on the 4 keys).
-- The budget rule is the crate's `core::policy::room_needed`, per conversation: free what the
-- conversation's totals plus the incoming entry exceed of maxBytes / maxEntries (the storage
-- conformance suite ties the two). A write that leaves more to evict than one batch goes on with
-- op 't', which evicts down to the limits from the conversation's totals at that moment and never
-- an entry stored by a later write: Redis runs the calls of one conversation (one hash slot) in the
-- order they arrive, so `n` numbers the writes in that order, and writes W1 then W2 end as if W1,
-- with all its evictions, had run before W2. While such a write evicts on, `x` is set: a read or
-- write its instance called after it comes with the flag '1' and is answered { 'x' } untouched;
-- the instance sends it again once that write is done (js/redis.cjs, `turns`), so it takes effect
-- after all of that write's evictions, where it was called.
local R, L, A, F = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local op, ttl = ARGV[1], tonumber(ARGV[2])

local function num(v) return tonumber(v or '0') or 0 end

-- Whether an error is Redis refusing a command for want of memory (as js/redis-ops.cjs reads one: it
-- begins with OOM, or says so after the prefix Redis before 7.0 puts on a script's errors).
local function oom(err)
  return string.sub(err, 1, 3) == 'OOM' or string.find(err, 'OOM command not allowed', 1, true) ~= nil
end

-- The bucket's totals; a bucket Redis evicted (or expired) only in part is dropped whole first:
-- an entry is whole or absent, never half.
local b, e, f, c, existing, last, evicting = 0, 0, 0, false, false, 0, false
-- A read needs no totals: its rows are whole by construction (payload and fields in one hash),
-- and one whose `lru` Redis evicted is answered as a miss.
if op ~= 'r' then
  -- A write also reads the size of the entry it replaces, if any (ARGV[3] is its uri), and the
  -- number of the last write.
  local h = redis.call('HMGET', R, 'b', 'e', 'f', 'c', op == 'w' and ('z:' .. ARGV[3]) or 'c', 'n', 'x')
  b, e, f, c = num(h[1]), num(h[2]), num(h[3]), h[4]
  if op == 'w' then existing, last, evicting = h[5], num(h[6]), h[7] end
  local expected = 0
  if h[2] then expected = (f > 0) and 4 or 3 end
  if redis.call('EXISTS', R, L, A, F) ~= expected or (h[2] and e <= 0) then
    redis.call('UNLINK', R, L, A, F)
    b, e, f, c, existing, last, evicting = 0, 0, 0, false, false, 0, false
  end
end

-- Called only when something changed: a call that removes nothing writes nothing, so Redis out
-- of memory (noeviction refuses a script's first write) never refuses a removal that had
-- nothing to do in this bucket.
local function save()
  if e <= 0 then
    redis.call('UNLINK', R, L, A, F)
    return
  end
  redis.call('HSET', R, 'b', b, 'e', e, 'f', f)
end

local function touch()
  if ttl > 0 and e > 0 then
    redis.call('PEXPIRE', R, ttl)
    redis.call('PEXPIRE', L, ttl)
    redis.call('PEXPIRE', A, ttl)
    if f > 0 then redis.call('PEXPIRE', F, ttl) end
  elseif f > 0 then
    -- Another instance over this prefix, with a ttlMs, gave the conversation an expiry: the
    -- fresh index (made again here after an invalidation emptied it) expires with the rest.
    local left = redis.call('PTTL', R)
    if left > 0 then redis.call('PEXPIRE', F, left) end
  end
end

-- Deletes the entries `uris` (present or not) in a few commands; returns how many existed and
-- their bytes. Totals are updated in b, e, f (the caller saves).
local function remove(uris)
  if #uris == 0 then return 0, 0 end
  local fields = {}
  for i, uri in ipairs(uris) do fields[i] = 'z:' .. uri end
  local sizes = redis.call('HMGET', R, unpack(fields))
  local present, bytes = {}, 0
  for i, size in ipairs(sizes) do
    if size then
      present[#present + 1] = uris[i]
      bytes = bytes + tonumber(size)
    end
  end
  if #present == 0 then return 0, 0 end
  local gone = {}
  for _, uri in ipairs(present) do
    gone[#gone + 1] = 'p:' .. uri; gone[#gone + 1] = 'm:' .. uri
    gone[#gone + 1] = 'z:' .. uri; gone[#gone + 1] = 's:' .. uri; gone[#gone + 1] = 'n:' .. uri
  end
  redis.call('HDEL', R, unpack(gone))
  redis.call('ZREM', L, unpack(present))
  redis.call('ZREM', A, unpack(present))
  if f > 0 then f = f - redis.call('HDEL', F, unpack(present)) end
  b, e = b - bytes, e - #present
  return #present, bytes
end

-- Evicts least recently used entries (never `keep`) until `bytes` and `entries` are freed, at
-- most `limit` of them; returns how many, and whether more would still have to go. With `before`,
-- only entries stored by a write numbered below it are candidates (`limit` bounds the entries
-- looked at then, candidates or not).
local function evict(bytes, entries, keep, limit, before)
  if bytes <= 0 and entries <= 0 then return 0, false end
  local batch = redis.call('ZRANGE', L, 0, limit)
  local chosen, sizes, numbers = {}, {}, {}
  local fields, seqs = {}, {}
  for i, uri in ipairs(batch) do fields[i] = 'z:' .. uri; seqs[i] = 'n:' .. uri end
  if #fields > 0 then
    sizes = redis.call('HMGET', R, unpack(fields))
    if before then numbers = redis.call('HMGET', R, unpack(seqs)) end
  end
  local looked = 0
  for i, uri in ipairs(batch) do
    if (bytes <= 0 and entries <= 0) or #chosen >= limit or looked >= limit then break end
    looked = looked + 1
    if uri ~= keep and (not before or num(numbers[i]) < before) then
      chosen[#chosen + 1] = uri
      bytes = bytes - num(sizes[i])
      entries = entries - 1
    end
  end
  local count = remove(chosen)
  -- More to free, and the batch was cut short by `limit` (not by running out of entries). Without
  -- a candidate in a whole batch (all stored by later writes) it stops: those writes evict on.
  return count, (bytes > 0 or entries > 0) and looked >= limit and count > 0
end

if op == 'w' then
  -- uri, conv JSON, size, addedAt, lastUsedAt, tool JSON, meta JSON, payload JSON, maxBytes,
  -- maxEntries, batch, flag ('1': its instance called it while a write of its on this
  -- conversation was unsettled)
  -- answers { evicted, bytes, entries, more, the write's number }, or { 'x' } untouched when
  -- flagged while a write's evictions are under way
  if ARGV[14] == '1' and evicting then return { 'x' } end
  local uri, conv, size = ARGV[3], ARGV[4], tonumber(ARGV[5])
  if existing then remove({ uri }) end
  local evicted, more = evict(b + size - tonumber(ARGV[11]), e + 1 - tonumber(ARGV[12]), uri, tonumber(ARGV[13]))
  b, e, f = b + size, e + 1, f + 1
  local owner = conv
  if c and c ~= conv then owner = '*' end
  local seq = last + 1
  redis.call('HSET', R, 'p:' .. uri, ARGV[10], 'm:' .. uri, ARGV[9], 'z:' .. uri, ARGV[5], 'n:' .. uri, seq,
    'b', b, 'e', e, 'f', f, 'c', owner, 'n', seq)
  -- Evictions left over are this write's (they cover every earlier write's); none left: the
  -- conversation fits, and an earlier write has nothing left to evict either (instances over
  -- one prefix share their limits, docs/REDIS.md; a number left by a write given up on goes too).
  if more then
    redis.call('HSET', R, 'x', seq)
  elseif evicting then
    redis.call('HDEL', R, 'x')
  end
  redis.call('ZADD', L, ARGV[7], uri)
  redis.call('ZADD', A, ARGV[6], uri)
  redis.call('HSET', F, uri, ARGV[8])
  touch()
  return { evicted, b, e, more and 1 or 0, seq }
end

if op == 't' then
  -- maxBytes, maxEntries, batch, uri, number: what is left of a write's evictions (the write of
  -- `uri`, numbered `number`). Evicts least recently used entries until the conversation, as it is
  -- now, fits the limits; never the write's own entry, nor one stored by a later write. When the
  -- entry is gone or was written again, a later call took over (a clear, or a write that evicted
  -- down to its own limits): nothing is left to do. Answers { evicted, more, bytes, entries }.
  local uri, seq = ARGV[6], tonumber(ARGV[7])
  if num(redis.call('HGET', R, 'n:' .. uri)) ~= seq then
    if num(redis.call('HGET', R, 'x')) == seq then redis.call('HDEL', R, 'x') end
    return { 0, 0, b, e }
  end
  local count, more = evict(b - tonumber(ARGV[3]), e - tonumber(ARGV[4]), uri, tonumber(ARGV[5]), seq)
  if not more and num(redis.call('HGET', R, 'x')) == seq then redis.call('HDEL', R, 'x') end
  if count > 0 then save() end
  return { count, more and 1 or 0, b, e }
end

if op == 'r' then
  -- now (the cache's clock), depth, flag (as a write's), uris...: per uri meta JSON, payload JSON, stale cause JSON,
  -- lastUsedAt; then the present rows of this bucket on their derivedFrom chains, up to depth
  -- links, each as uri, meta, payload, stale cause, lastUsedAt (read here, in the same call: at
  -- the read's place in call order; a source also asked for as a row comes again among them).
  -- Every row read becomes used at now. Flagged while a write's evictions are under way: { 'x' },
  -- untouched.
  if ARGV[5] == '1' and redis.call('HEXISTS', R, 'x') == 1 then return { 'x' } end
  local out, hit, asked, pending = {}, false, {}, {}
  -- The row of uri and its last use, set to now (false when absent), or the error to answer;
  -- the row's source is noted as pending.
  local function get(uri)
    local row = redis.call('HMGET', R, 'm:' .. uri, 'p:' .. uri, 's:' .. uri)
    if not row[2] then return row, false end
    -- The last use. Redis out of memory (maxmemory, noeviction) refuses it (a script's first
    -- write): the read still answers, with the last use recorded before.
    local set = redis.pcall('ZADD', L, 'XX', 'GT', 'CH', ARGV[3], uri)
    if type(set) == 'table' and set.err and not oom(set.err) then return row, false, set end
    local used = redis.call('ZSCORE', L, uri)
    if used then
      hit = true
      local ok, meta = pcall(cjson.decode, row[1])
      local source = ok and type(meta) == 'table' and meta.derivedFrom
      if type(source) == 'string' and not asked[source] then
        asked[source] = true
        pending[#pending + 1] = source
      end
    end
    return row, used
  end
  for i = 6, #ARGV do
    local row, used, failed = get(ARGV[i])
    if failed then return failed end
    if used then
      out[#out + 1] = row[1]; out[#out + 1] = row[2]; out[#out + 1] = row[3]; out[#out + 1] = used
    else
      out[#out + 1] = false; out[#out + 1] = false; out[#out + 1] = false; out[#out + 1] = false
    end
  end
  local depth = tonumber(ARGV[4]) or 0
  while depth > 0 and #pending > 0 do
    depth = depth - 1
    local links = pending
    pending = {}
    for _, uri in ipairs(links) do
      local row, used, failed = get(uri)
      if failed then return failed end
      if used then
        out[#out + 1] = uri; out[#out + 1] = row[1]; out[#out + 1] = row[2]; out[#out + 1] = row[3]
        out[#out + 1] = used
      end
    end
  end
  if hit and ttl > 0 then
    -- Should Redis refuse it for want of memory too, the read answers all the same.
    for _, key in ipairs({ R, L, A, F }) do
      local set = redis.pcall('PEXPIRE', key, ttl)
      if type(set) == 'table' and set.err and not oom(set.err) then return set end
    end
  end
  return out
end

if op == 'e' then
  -- bytes, entries, batch, keep ('' for none): evicts least recently used entries of this
  -- conversation, never `keep`
  local before = b
  local keep = ARGV[6]
  if keep == '' then keep = nil end
  local count, more = evict(tonumber(ARGV[3]), tonumber(ARGV[4]), keep, tonumber(ARGV[5]))
  if count > 0 then save() end
  return { count, before - b, more and 1 or 0, b, e }
end

if op == 's' then
  return { e, b, c or false }
end

if op == 'q' then
  -- the least recently used entry's lastUsedAt (false when empty), and the bytes
  local oldest = redis.call('ZRANGE', L, 0, 0, 'WITHSCORES')
  return { oldest[2] or false, b }
end

if op == 'o' then
  return 'ok'
end

if op == 'd' then
  -- conv JSON ('' for none), cutoff, batch: the entries of that conversation, or added before
  -- cutoff; answers { removed, more }
  local conv, limit = ARGV[3], tonumber(ARGV[5])
  if conv ~= '' and c ~= '*' then
    if c ~= conv then return { 0, 0 } end
    local count = e
    redis.call('UNLINK', R, L, A, F)
    return { count, 0 }
  end
  local uris
  if conv == '' then
    uris = redis.call('ZRANGEBYSCORE', A, '-inf', '(' .. ARGV[4], 'LIMIT', 0, limit)
  else
    -- Two conversations share this segment: the entries whose row names `conv`, a batch a call.
    local cursor = ARGV[6] or '0'
    local scan = redis.call('HSCAN', R, cursor, 'MATCH', 'm:*', 'COUNT', limit)
    uris = {}
    local key = '"convId":' .. conv
    for i = 1, #scan[2], 2 do
      if string.find(scan[2][i + 1], key, 1, true) then uris[#uris + 1] = string.sub(scan[2][i], 3) end
    end
    local count = remove(uris)
    if count > 0 then save() end
    return { count, scan[1] ~= '0' and 1 or 0, scan[1] }
  end
  local count = remove(uris)
  if count > 0 then save() end
  return { count, #uris >= limit and 1 or 0 }
end

if op == 'f' then
  -- cursor, batch: the distinct tool names of fresh entries, a batch a call: { cursor, names... }
  local scan = redis.call('HSCAN', F, ARGV[3], 'COUNT', ARGV[4])
  local out, seen = { scan[1] }, {}
  for i = 2, #scan[2], 2 do
    local name = scan[2][i]
    if not seen[name] then
      seen[name] = true
      out[#out + 1] = name
    end
  end
  return out
end

if op == 'k' then
  -- cause JSON, cursor, batch, tool names (JSON)...: marks fresh entries of those tools stale
  local wanted = {}
  for i = 6, #ARGV do wanted[ARGV[i]] = true end
  local scan = redis.call('HSCAN', F, ARGV[4], 'COUNT', ARGV[5])
  local marked = {}
  for i = 1, #scan[2], 2 do
    if wanted[scan[2][i + 1]] then marked[#marked + 1] = scan[2][i] end
  end
  if #marked > 0 then
    local fields = {}
    for _, uri in ipairs(marked) do fields[#fields + 1] = 's:' .. uri; fields[#fields + 1] = ARGV[3] end
    redis.call('HSET', R, unpack(fields))
    f = f - redis.call('HDEL', F, unpack(marked))
    save()
  end
  return { scan[1], #marked }
end

if op == 'l' then
  -- conv JSON ('' for every conversation), cursor, batch: { cursor, then per entry uri, meta,
  -- payload, stale cause, lastUsedAt } (the caller keeps the rows of its conversation and sorts)
  local conv = ARGV[3]
  if conv ~= '' and c ~= '*' and c ~= conv then return { '0' } end
  local scan = redis.call('HSCAN', R, ARGV[4], 'MATCH', 'z:*', 'COUNT', ARGV[5])
  local out = { scan[1] }
  for i = 1, #scan[2], 2 do
    local uri = string.sub(scan[2][i], 3)
    local row = redis.call('HMGET', R, 'm:' .. uri, 'p:' .. uri, 's:' .. uri)
    if row[2] then
      out[#out + 1] = uri; out[#out + 1] = row[1]; out[#out + 1] = row[2]; out[#out + 1] = row[3]
      out[#out + 1] = redis.call('ZSCORE', L, uri)
    end
  end
  return out
end

return redis.error_reply('ERR mcp-result-cache: unknown operation ' .. tostring(op))
