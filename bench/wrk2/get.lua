-- GET /v0/entity?id=k<n> for n in [1, N]: the same requests as `larder bench -w get`.
-- DIST: uniform (default) or zipf, an approximation of a Zipf(1) hot set: n = floor(N ^ U), so k1 is hottest.
-- Write the keys first (put.lua with START=0 for at least N requests, or `larder bench --prefill --keys N`).
-- Usage: wrk2 -t1 -c64 -d30s -R20000 -L -U -s get.lua http://127.0.0.1:8080 -- [N=100000] [DIST=uniform]
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("seed", 1000 + #threads)
end

local n, zipf

function init(args)
  n = tonumber(args[1] or "100000")
  zipf = (args[2] or "uniform") == "zipf"
  math.randomseed(seed or os.time())
end

local function key()
  if zipf then
    return math.floor(n ^ math.random())
  end
  return math.random(1, n)
end

request = function()
  return wrk.format("GET", "/v0/entity?id=k" .. key())
end
