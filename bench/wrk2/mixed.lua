-- A read/write mix over k1..kN: GET with probability GETS percent, otherwise PUT (an overwrite, SIZE bytes).
-- The same requests as `larder bench --mix get=GETS,put=100-GETS --put-ids random --keys N`.
-- Usage: wrk2 -t1 -c64 -d30s -R20000 -L -U -s mixed.lua http://127.0.0.1:8080 -- [N=100000] [GETS=90] [SIZE=64]
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("seed", 2000 + #threads)
end

local n, gets, value

function init(args)
  n = tonumber(args[1] or "100000")
  gets = tonumber(args[2] or "90")
  value = string.rep("v", tonumber(args[3] or "64"))
  math.randomseed(seed or os.time())
end

request = function()
  local id = math.random(1, n)
  if math.random(1, 100) <= gets then
    return wrk.format("GET", "/v0/entity?id=k" .. id)
  end
  return wrk.format("PUT", "/v0/entity?id=k" .. id, nil, value)
end
