-- Tracked clicks from many addresses (scripts/bench-paths.ts): each request takes the next address of
-- BENCH_IPS (one a line) as X-Forwarded-For, so svc (SVC_TRUST_PROXY=1) looks every click up in its IP
-- data, and one of a few Accept-Language values. Counts responses by status and paces like status.lua.
local threads = {}
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
if pause > 0 then function delay() return pause end end
local ips = {}
for line in io.lines(os.getenv("BENCH_IPS")) do
  if line ~= "" then ips[#ips + 1] = line end
end
local langs = { "en-US,en;q=0.9", "de-DE,de;q=0.9,en;q=0.8", "fr-FR,fr;q=0.9,en;q=0.5", "es-ES,es;q=0.9", "pl-PL,pl;q=0.9,en;q=0.7" }
local i = 0
function setup(thread) table.insert(threads, thread) end
function init(args) n302 = 0; n2xx = 0; nother = 0 end
function request()
  i = i + 1
  wrk.headers["X-Forwarded-For"] = ips[(i % #ips) + 1]
  wrk.headers["Accept-Language"] = langs[(i % #langs) + 1]
  return wrk.format(nil, nil, wrk.headers)
end
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
