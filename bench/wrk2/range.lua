-- GET /v0/entities?start=k<n>&end=k<n>: : every key that starts with k<n> (k<n> itself, k<n>0..k<n>9, ...), a
-- chunked answer. The same requests as `larder bench -w range --keys N`. With N = 100000 most scans return
-- 1-11 keys, and small n return many more (k1 covers k1, k10..k19, k100..k199, ...).
-- Usage: wrk2 -t1 -c64 -d30s -R2000 -L -U -s range.lua http://127.0.0.1:8080 -- [N=100000]
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("seed", 3000 + #threads)
end

local n

function init(args)
  n = tonumber(args[1] or "100000")
  math.randomseed(seed or os.time())
end

request = function()
  local id = math.random(1, n)
  -- ':' (%3A) sorts right after '9', so [k<id>, k<id>:) is exactly the keys with that prefix.
  return wrk.format("GET", "/v0/entities?start=k" .. id .. "&end=k" .. id .. "%3A")
end
