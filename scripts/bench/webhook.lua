-- Cycles signed ecom-a deliveries (POST /webhook/ecom-a, topic orders/paid) through the file named by
-- BENCH_ORDERS, one a line: "<webhook id>\t<base64 signature>\t<JSON body>" (scripts/bench.ts writes it
-- before the run, every order distinct). The requests are formatted once in init(), so wrk's own cost per
-- request is what it is for /postback. A line used a second time would be a redelivery (no conversion):
-- `wrapped` counts those, and the bench fails on any. `attributed` counts 200s whose outcome is attributed.
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args)
  reqs = {}
  for line in io.lines(os.getenv("BENCH_ORDERS")) do
    local id, sig, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    reqs[#reqs + 1] = wrk.format("POST", "/webhook/ecom-a", {
      ["Content-Type"] = "application/json",
      ["X-Shopify-Topic"] = "orders/paid",
      ["X-Shopify-Hmac-Sha256"] = sig,
      ["X-Shopify-Webhook-Id"] = id,
      ["X-Shopify-Shop-Domain"] = "bench-shop.example",
    }, body)
  end
  i = 0; n2xx = 0; n302 = 0; nother = 0; attributed = 0; wrapped = 0
end
function request()
  i = i + 1
  if i > #reqs then wrapped = wrapped + 1 end
  return reqs[((i - 1) % #reqs) + 1]
end
function response(status, headers, body)
  if status >= 200 and status < 300 then
    n2xx = n2xx + 1
    if body and body:find('"outcome":"attributed"', 1, true) then attributed = attributed + 1 end
  elseif status == 302 then n302 = n302 + 1
  else nother = nother + 1 end
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    io.write(string.format("STATUS n302=%d n2xx=%d other=%d\n", t:get("n302"), t:get("n2xx"), t:get("nother")))
    io.write(string.format("WEBHOOK attributed=%d wrapped=%d\n", t:get("attributed"), t:get("wrapped")))
  end
end
