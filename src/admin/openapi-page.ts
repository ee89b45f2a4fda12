// The API reference page at /admin/api/openapi, offline: Scalar's standalone bundle is vendored
// (vendor/scalar, see its README) and embedded in the binary by this file import, so the page loads
// nothing from another origin, and its Content-Security-Policy allows nothing but this server.
//
// A file import, not a text import: a text import kept the 4.3 MB bundle in the JavaScript heap for the
// life of the process (8.6 MB as UTF-16), and the collector sizes its heap from what is live, so every
// redirect paid for it in memory. Now it is read from the executable when an admin opens the page.
import scriptFile from '../../vendor/scalar/standalone.js.txt' with { type: 'file' }
import { htmlPageHeaders } from '../http/security-headers'

/** The @scalar/api-reference release vendor/scalar/standalone.js.txt comes from. */
export const REFERENCE_SCRIPT_VERSION = '1.72.1'

/**
 * Only this server. Styles need 'unsafe-inline': the bundle injects its stylesheet and sets style
 * attributes at run time. Images and fonts may be data: URIs (icons inside the bundle).
 */
const PAGE_HEADERS = htmlPageHeaders({
  'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'], 'connect-src': ["'self'"], 'form-action': ["'self'"],
})

const escapeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;')

/** The reference page; everything it names is a path on this server. */
export function referencePage(specPath: string, scriptPath: string): Response {
  const config = {
    url: specPath,
    // Each of these would reach a third party: web fonts, usage telemetry, the AI agent and MCP helpers.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    hideClientButton: false,
  }
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc admin API</title>
</head>
<body>
<script id="api-reference" type="application/json" data-configuration='${escapeAttribute(JSON.stringify(config))}'></script>
<script src="${scriptPath}"></script>
</body>
</html>
`
  return new Response(html, { headers: PAGE_HEADERS })
}

let gzipped: Promise<Uint8Array<ArrayBuffer>> | null = null

/** The bundle (4 MB, about 1.2 MB gzipped: compressed once, on first use, and kept). */
export async function referenceScript(request: Request): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'private, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  }
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    if (!gzipped) {
      gzipped = Bun.file(scriptFile).bytes().then((b) => Bun.gzipSync(b))
      // A failed read is not kept: the next request tries again.
      gzipped.catch(() => { gzipped = null })
    }
    return new Response(await gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } })
  }
  return new Response(Bun.file(scriptFile), { headers })
}
