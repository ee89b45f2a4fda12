// The admin dashboard (issue 13, first screens): one page at /admin, bundled by Bun from ui/index.html
// (HTML import: bundled when the server starts in development, at build time into the compiled binary),
// served by Bun itself. The page uses only the admin API; it has no server-side logic of its own.
import { Elysia } from 'elysia'
import type { Feature } from '../context'
import { ADMIN_HEADERS } from '../http/security-headers'
import page from './ui/index.html'

/** Where a person who typed the server's address is sent. */
const TO_DASHBOARD = { status: 302, headers: { ...ADMIN_HEADERS, location: '/admin' } } as const

export function dashboardFeature(): Feature {
  return {
    name: 'dashboard',
    // The bare root is the dashboard's address, whoever asks (a browser, `curl -L`, an uptime check): GET and
    // HEAD / redirect to /admin; other paths keep the JSON 404. (`/admin/` with a slash is answered in
    // http/errors.ts: an Elysia route for it would also take /admin from Bun.)
    routes: new Elysia({ name: 'dashboard' })
      .get('/', () => new Response(null, TO_DASHBOARD), { detail: { hide: true } }),
    // Hash routes (#/campaigns): only /admin itself is the page, so no path of /admin/api is shadowed.
    pages: { '/admin': page },
  }
}
