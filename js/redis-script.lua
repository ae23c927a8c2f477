-- The one script behind `redisStorage` (js/redis.cjs; docs/REDIS.md): every logical operation of
-- a cache is one call of it, atomic in Redis. KEYS[1] is the totals hash `<prefix>{all}:t`; every
-- other key of the cache shares its `{all}` hash tag (one hash slot, so it runs on Redis Cluster):
--   t           hash   b = total bytes, e = entries
--   l           zset   uri -> lastUsedAt (least recently used first; ties by uri)
--   a           zset   uri -> addedAt
--   x           hash   uri -> "<sizeBytes> <conversation key>"
--   m           hash   uri -> the row's other fields as JSON (convId, sourceToolName, addedAt, ...)
--   n           hash   uri -> sourceToolName as JSON
--   s           hash   uri -> staleCause as JSON (absent: fresh)
--   v           zset   conversation key -> when it expires (ms, Redis clock; +inf without a TTL)
--   p:<conv>    hash   uri -> payload JSON            (expires with the conversation)
--   i:<conv>    set    the conversation's uris        (expires with the conversation)
-- A conversation key is the JSON of its exact id. With a TTL, Redis expires p:/i: itself; every
-- call first sweeps conversations whose time has passed out of the shared structures, so expired
-- bytes never count, and the shared keys expire a TTL after the last call.
-- ARGV[1] = operation, ARGV[2] = TTL in ms (0: none), the rest per operation.
-- The budget rule is the crate's `core::policy::room_needed`: free what the totals plus the
-- incoming entry exceed of maxBytes / maxEntries (tests/js/redis-conformance tie the two).
local t = KEYS[1]
local base = string.sub(t, 1, -2)
local l, a, x, m, n, s, v = base .. 'l', base .. 'a', base .. 'x', base .. 'm', base .. 'n', base .. 's', base .. 'v'
local op, ttl = ARGV[1], tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function conv_of(uri)
  local entry = redis.call('HGET', x, uri)
  if not entry then return nil end
  local space = string.find(entry, ' ', 1, true)
  return tonumber(string.sub(entry, 1, space - 1)), string.sub(entry, space + 1)
end

-- Deletes one entry everywhere and from the totals; returns its size (nil when absent).
local function remove(uri)
  local size, conv = conv_of(uri)
  if not size then return nil end
  redis.call('HDEL', x, uri)
  redis.call('HDEL', m, uri)
  redis.call('HDEL', n, uri)
  redis.call('HDEL', s, uri)
  redis.call('ZREM', l, uri)
  redis.call('ZREM', a, uri)
  redis.call('HDEL', base .. 'p:' .. conv, uri)
  redis.call('SREM', base .. 'i:' .. conv, uri)
  if redis.call('EXISTS', base .. 'i:' .. conv) == 0 then redis.call('ZREM', v, conv) end
  redis.call('HINCRBY', t, 'b', -size)
  redis.call('HINCRBY', t, 'e', -1)
  return size
end

-- Deletes many entries at once (a clear, an age eviction, a sweep): a few commands per chunk
-- instead of a dozen per entry. Returns how many existed.
local function remove_many(uris)
  local count = 0
  for from = 1, #uris, 512 do
    local chunk = { unpack(uris, from, math.min(from + 511, #uris)) }
    local entries = redis.call('HMGET', x, unpack(chunk))
    local bytes, present, by_conv = 0, {}, {}
    for i, entry in ipairs(entries) do
      if entry then
        local space = string.find(entry, ' ', 1, true)
        local conv = string.sub(entry, space + 1)
        bytes = bytes + tonumber(string.sub(entry, 1, space - 1))
        present[#present + 1] = chunk[i]
        by_conv[conv] = by_conv[conv] or {}
        table.insert(by_conv[conv], chunk[i])
      end
    end
    if #present > 0 then
      for _, key in ipairs({ x, m, n, s }) do redis.call('HDEL', key, unpack(present)) end
      redis.call('ZREM', l, unpack(present))
      redis.call('ZREM', a, unpack(present))
      for conv, list in pairs(by_conv) do
        redis.call('HDEL', base .. 'p:' .. conv, unpack(list))
        redis.call('SREM', base .. 'i:' .. conv, unpack(list))
        if redis.call('EXISTS', base .. 'i:' .. conv) == 0 then redis.call('ZREM', v, conv) end
      end
      redis.call('HINCRBY', t, 'b', -bytes)
      redis.call('HINCRBY', t, 'e', -#present)
      count = count + #present
    end
  end
  return count
end

-- Conversations whose TTL has passed leave the shared structures (Redis has expired, or is about
-- to expire, their own keys).
local expired = redis.call('ZRANGEBYSCORE', v, '-inf', now)
if #expired > 0 then
  local gone = {}
  for _, conv in ipairs(expired) do
    gone[conv] = true
    redis.call('DEL', base .. 'p:' .. conv, base .. 'i:' .. conv)
    redis.call('ZREM', v, conv)
  end
  local all, doomed = redis.call('HGETALL', x), {}
  for i = 1, #all, 2 do
    local entry = all[i + 1]
    if gone[string.sub(entry, string.find(entry, ' ', 1, true) + 1)] then doomed[#doomed + 1] = all[i] end
  end
  remove_many(doomed)
end

local function totals()
  local b = tonumber(redis.call('HGET', t, 'b') or '0')
  local e = tonumber(redis.call('HGET', t, 'e') or '0')
  return b, e
end

-- A use of a conversation (or of the cache): pushes its expiry a TTL ahead.
local function touch(conv)
  if ttl <= 0 then return end
  redis.call('ZADD', v, now + ttl, conv)
  redis.call('PEXPIRE', base .. 'p:' .. conv, ttl)
  redis.call('PEXPIRE', base .. 'i:' .. conv, ttl)
end
local function touch_shared()
  if ttl <= 0 then return end
  for _, key in ipairs({ t, l, a, x, m, n, s, v }) do redis.call('PEXPIRE', key, ttl) end
end

-- Evicts least recently used entries (never `keep`) until `bytes` and `entries` are freed or
-- nothing else is left; returns how many.
local function evict(bytes, entries, keep)
  local count = 0
  local from = 0
  while bytes > 0 or entries > 0 do
    local batch = redis.call('ZRANGE', l, from, from + 31)
    if #batch == 0 then break end
    for _, uri in ipairs(batch) do
      if bytes <= 0 and entries <= 0 then break end
      if uri == keep then
        from = from + 1
      else
        local size = remove(uri)
        if size then
          bytes = bytes - size
          entries = entries - 1
          count = count + 1
        else
          redis.call('ZREM', l, uri)
        end
      end
    end
  end
  return count
end

if op == 'w' then
  -- uri, conv, size, addedAt, lastUsedAt, tool JSON, meta JSON, payload JSON, maxBytes, maxEntries
  local uri, conv, size = ARGV[3], ARGV[4], tonumber(ARGV[5])
  remove(uri)
  local b, e = totals()
  local evicted = evict(b + size - tonumber(ARGV[11]), e + 1 - tonumber(ARGV[12]), uri)
  redis.call('HSET', x, uri, ARGV[5] .. ' ' .. conv)
  redis.call('HSET', m, uri, ARGV[9])
  redis.call('HSET', n, uri, ARGV[8])
  redis.call('ZADD', a, ARGV[6], uri)
  redis.call('ZADD', l, ARGV[7], uri)
  redis.call('HSET', base .. 'p:' .. conv, uri, ARGV[10])
  redis.call('SADD', base .. 'i:' .. conv, uri)
  if ttl > 0 then touch(conv) else redis.call('ZADD', v, '+inf', conv) end
  redis.call('HINCRBY', t, 'b', size)
  redis.call('HINCRBY', t, 'e', 1)
  touch_shared()
  b, e = totals()
  return { evicted, b, e }
end

-- One row as four values: meta JSON, payload JSON, stale cause JSON (or nil), lastUsedAt.
local function row(uri, out)
  local size, conv = conv_of(uri)
  local payload = size and redis.call('HGET', base .. 'p:' .. conv, uri)
  if not payload then
    out[#out + 1] = false; out[#out + 1] = false; out[#out + 1] = false; out[#out + 1] = false
    return nil
  end
  out[#out + 1] = redis.call('HGET', m, uri)
  out[#out + 1] = payload
  out[#out + 1] = redis.call('HGET', s, uri) or false
  out[#out + 1] = redis.call('ZSCORE', l, uri)
  return conv
end

if op == 'r' then
  -- now (the cache's clock), uris...
  local out, touched = {}, {}
  for i = 4, #ARGV do
    local uri = ARGV[i]
    redis.call('ZADD', l, 'XX', 'GT', ARGV[3], uri)
    local conv = row(uri, out)
    if conv then touched[conv] = true end
  end
  for conv in pairs(touched) do touch(conv) end
  if next(touched) then touch_shared() end
  return out
end

if op == 'e' then
  return evict(tonumber(ARGV[3]), 0, nil)
end

if op == 's' then
  local b, e = totals()
  return { e, b, redis.call('ZCARD', v) }
end

-- The references of conversation key ARGV[3], or `otherwise` (a command) when it is ''.
local function uris_of(...)
  if ARGV[3] ~= '' then return redis.call('SMEMBERS', base .. 'i:' .. ARGV[3]) end
  return redis.call(...)
end

if op == 'd' then
  -- conversation key ('' for none), cutoff: the entries of that conversation, or added before it
  return remove_many(uris_of('ZRANGEBYSCORE', a, '-inf', '(' .. ARGV[4]))
end

if op == 'f' then
  local names, seen = {}, {}
  local all = redis.call('HGETALL', n)
  for i = 1, #all, 2 do
    local name = all[i + 1]
    if not seen[name] and redis.call('HEXISTS', s, all[i]) == 0 then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  return names
end

if op == 'k' then
  -- cause JSON, tool names (JSON)...
  local wanted = {}
  for i = 4, #ARGV do wanted[ARGV[i]] = true end
  local count = 0
  local all = redis.call('HGETALL', n)
  for i = 1, #all, 2 do
    if wanted[all[i + 1]] and redis.call('HSETNX', s, all[i], ARGV[3]) == 1 then count = count + 1 end
  end
  return count
end

if op == 'l' then
  -- conversation key ('' for every entry): uri and the row's four values (the caller sorts)
  local out = {}
  for _, uri in ipairs(uris_of('HKEYS', x)) do
    out[#out + 1] = uri
    row(uri, out)
  end
  return out
end

if op == 'o' then
  return 'ok'
end

return redis.error_reply('ERR mcp-result-cache: unknown operation ' .. tostring(op))
