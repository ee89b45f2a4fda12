// OpenAPI description of GET /postback. The route is a Bun route outside Elysia (routes.ts), so the
// OpenAPI plugin cannot see it; admin/openapi-public.ts merges this in with /c and /r.
import { CANONICAL, DEFAULT_ALIASES } from './aliases'

/** Spec §8: postbacks a minute from one IP. */
export const POSTBACK_LIMIT_PER_MINUTE = 600

const PARAMETER_NOTES: Record<(typeof CANONICAL)[number], string> = {
  subid: 'the click_id handed out by /c (needed to match a click); cid is accepted last',
  status: 'received status, mapped to a conversion type through the status map',
  payout: 'revenue of the conversion (default: the offer payout)',
  tid: "the advertiser's transaction id",
  date: 'conversion time: ISO 8601, epoch seconds or milliseconds (default now)',
  sig: 'HMAC signature; required only when the postback_secret setting is set',
  email: 'buyer email',
}
const errorBody = { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } } } } }

/** Each parameter under its first default name, its other names listed. */
export const postbackOperation = {
  tags: ['public'],
  operationId: 'getPostback',
  summary: 'Conversion postback (advertiser → svc)',
  description: 'All data in the query string. Each parameter is accepted under any of its names (priority order; '
    + 'PUT /admin/api/postback-aliases changes them). The answer is the same whether or not a conversion was recorded.',
  security: [],
  parameters: CANONICAL.map((name) => ({
    name: DEFAULT_ALIASES[name][0],
    in: 'query',
    required: false,
    description: `${PARAMETER_NOTES[name]}. Also accepted as: ${DEFAULT_ALIASES[name].slice(1).join(', ') || '(no other name)'}`,
    schema: { type: 'string' },
  })),
  responses: {
    200: { description: 'accepted (recorded or not)', content: { 'text/plain': { schema: { type: 'string', example: 'OK' } } } },
    401: { description: 'postback_secret is set and sig is missing or wrong', content: errorBody },
    429: { description: `more than ${POSTBACK_LIMIT_PER_MINUTE} postbacks in a minute from this IP`, headers: { 'Retry-After': { schema: { type: 'integer' } } }, content: errorBody },
  },
}
