// Baseline for `npm run bench`: the cheapest possible Bun.serve answering a constant 302.
const target = 'https://offer.example/go?click_id=0b1c2d3e-4f50-4617-8899-aabbccddeeff&src=1&s1=abc'
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  reusePort: false,
  development: false,
  fetch: () => new Response(null, { status: 302, headers: { location: target, 'cache-control': 'no-store' } }),
})
console.log(`bare listening on ${server.port}`)
