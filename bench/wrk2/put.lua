-- PUT /v0/entity?id=k<n> with a value of SIZE bytes: the same requests as `larder bench -w put`.
-- Ids count up from START+1 and never repeat across threads (thread i of T writes START+i, START+i+T, ...).
-- Usage: wrk2 -t2 -c64 -d30s -R20000 -L -U -s put.lua http://127.0.0.1:8080 -- [START=0] [SIZE=64] [THREADS=1]
-- THREADS must repeat wrk's -t: each thread's init() runs before the next thread exists, so it cannot count them.
-- Works with wrk (closed loop) and wrk2 (open loop, -R).
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("index", #threads)
end

local counter, stride
local value

function init(args)
  local start = tonumber(args[1] or "0")
  local size = tonumber(args[2] or "64")
  stride = tonumber(args[3] or "1")
  -- `index` was set by setup() (1-based); without setup (single state) it is 1.
  counter = start + (index or 1) - stride
  value = string.rep("v", size)
end

request = function()
  counter = counter + stride
  return wrk.format("PUT", "/v0/entity?id=k" .. counter, nil, value)
end
