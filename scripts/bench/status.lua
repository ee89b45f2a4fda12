-- Counts responses by status in the wrk thread; done() prints one parsable line per thread.
-- BENCH_DELAY_MS > 0 paces the load: each connection pauses that long between requests. Without it no
-- delay() exists, so wrk sends as fast as it can, exactly as before pacing was added.
local threads = {}
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
if pause > 0 then function delay() return pause end end
function setup(thread) table.insert(threads, thread) end
function init(args) n302 = 0; n2xx = 0; nother = 0 end
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
