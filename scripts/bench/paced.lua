-- status.lua plus a per-connection pause between requests: BENCH_DELAY_MS (paced load).
local threads = {}
local d = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
function setup(thread) table.insert(threads, thread) end
function init(args) n302 = 0; n2xx = 0; nother = 0 end
function delay() return d end
function response(status, headers, body)
  if status == 302 then n302 = n302 + 1
  elseif status >= 200 and status < 300 then n2xx = n2xx + 1
  else nother = nother + 1 end
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    io.write(string.format("STATUS n302=%d n2xx=%d other=%d\n", t:get("n302"), t:get("n2xx"), t:get("nother")))
  end
end
