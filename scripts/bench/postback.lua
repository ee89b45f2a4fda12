-- Cycles /postback?subid=<click_id>&payout=1 through the click ids in the file named by BENCH_IDS, each
-- from a different X-Forwarded-For address (svc runs with SVC_TRUST_PROXY=1) so that the per-IP
-- postback rate limit (spec §8: 600/min) does not turn the benchmark into a 429 benchmark.
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args)
  ids = {}
  for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
  i = 0; n2xx = 0; n302 = 0; nother = 0
end
function request()
  i = i + 1
  local id = ids[(i % #ids) + 1]
  local ip = string.format("198.51.%d.%d", math.floor(i / 250) % 250, i % 250 + 1)
  return wrk.format("GET", "/postback?subid=" .. id .. "&payout=1", { ["X-Forwarded-For"] = ip })
end
function response(status, headers, body)
  if status >= 200 and status < 300 then n2xx = n2xx + 1
  elseif status == 302 then n302 = n302 + 1
  else nother = nother + 1 end
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    io.write(string.format("STATUS n302=%d n2xx=%d other=%d\n", t:get("n302"), t:get("n2xx"), t:get("nother")))
  end
end
