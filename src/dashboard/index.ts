// The admin dashboard (issue 13, first screens): one page at /admin, bundled by Bun from ui/index.html
// (HTML import: bundled when the server starts in development, at build time into the compiled binary),
// served by Bun itself. The page uses only the admin API; it has no server-side logic of its own.
import { Elysia } from 'elysia'
import type { Feature } from '../context'
import page from './ui/index.html'

export function dashboardFeature(): Feature {
  return {
    name: 'dashboard',
    routes: new Elysia({ name: 'dashboard' }),
    // Hash routes (#/campaigns): only /admin itself is the page, so no path of /admin/api is shadowed.
    pages: { '/admin': page },
  }
}
