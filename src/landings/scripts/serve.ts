// The four browser scripts of hosted landing pages (docs/browser-scripts.md): /pixel.js, /client.js,
// /cloak.js and /i18n.js. They are imported as text, so `bun build --compile` embeds them in the binary,
// and served by Bun.serve directly (native routes): no database, no per-request work beyond an ETag compare.
// @ts-ignore: a text import (a string); TypeScript does not know import attributes change the type.
import pixelSource from './pixel.js' with { type: 'text' }
// @ts-ignore: as above
import clientSource from './client.js' with { type: 'text' }
// @ts-ignore: as above
import cloakSource from './cloak.js' with { type: 'text' }
// @ts-ignore: as above
import i18nSource from './i18n.js' with { type: 'text' }
import type { NativeRoutes } from '../../context'
import { staticScriptRoutes } from '../../http/static-scripts'

export { SCRIPT_CACHE_CONTROL, ifNoneMatchMatches, scriptEtag } from '../../http/static-scripts'

/** Path → source text of every script this module serves. */
export const SCRIPT_SOURCES: Readonly<Record<string, string>> = {
  '/pixel.js': pixelSource as string,
  '/client.js': clientSource as string,
  '/cloak.js': cloakSource as string,
  '/i18n.js': i18nSource as string,
}

/** The native routes of the four scripts (GET and HEAD). */
export function scriptRoutes(): NativeRoutes {
  return staticScriptRoutes(SCRIPT_SOURCES)
}
