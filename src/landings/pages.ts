// Hosted landing pages: GET /lp/:slug serves the landing's html with its macros filled in for the
// visitor's click, and pixel.js injected. The html is compiled once per landing (literal parts and macro
// references) and cached until the catalog changes.
import { escapeHtml } from '../lib/html'
import { analyzeMacros, fillSlot, type LandingRow, type LANDING_MACROS, type MacroSlot } from '../catalog'
import { clickParams, encodeMacroValue, type CampaignRoute, type Click, type ContinuableClick } from '../tracking'

type Known = (typeof LANDING_MACROS)[number]

/** A literal piece of html, or a macro slot (its name and how its value is escaped where it stands). */
type Part = string | MacroSlot

export interface LandingPage {
  id: number
  slug: string
  /** Null for a landing hosted elsewhere (url only): /lp has nothing to serve. */
  parts: readonly Part[] | null
  emailListId: number | null
}

/**
 * Compiles html once: each `{name}` reference's place (text, attribute, URL, script string…) is worked out
 * here, so rendering only escapes. A macro where no escaping is safe (a page saved before the save-time
 * check) is left as written.
 */
export function compilePage(row: Pick<LandingRow, 'id' | 'slug' | 'html' | 'emailListId'>): LandingPage {
  if (row.html === null) return { id: row.id, slug: row.slug, parts: null, emailListId: row.emailListId }
  return { id: row.id, slug: row.slug, parts: analyzeMacros(row.html).parts, emailListId: row.emailListId }
}

/** What a page's macros are filled with. */
export interface PageContext {
  click: (ContinuableClick | Click) | null
  route: CampaignRoute | null
  landingId: number
  /** The /lp request's own query parameters (sub1..sub10 and click_id aside). */
  query: Record<string, string> | null
  /** The /r link that continues the click to the offer. */
  offerUrl: string
}

function knownValue(name: Known, x: PageContext): string | number | null {
  const c = x.click
  switch (name) {
    case 'click_id': return c?.clickId ?? null
    case 'offer_url': return x.offerUrl
    case 'campaign_id': return x.route?.id ?? c?.campaignId ?? null
    case 'landing_id': return x.landingId
    case 'source_id': return c?.sourceId ?? x.route?.sourceId ?? null
    case 'offer_id': return c?.offerId ?? null
    case 'external_id': return x.route?.externalId ?? null
    default: return c ? c[name] : null
  }
}

/** The page's html for one visitor: every substituted value escaped for its place. */
export function renderPage(page: LandingPage, x: PageContext): string {
  const stored = clickParams(x.click?.params)
  let out = ''
  for (const p of page.parts ?? []) {
    if (typeof p === 'string') {
      out += p
      continue
    }
    if (p.known) {
      const v = knownValue(p.macro as Known, x)
      out += fillSlot(p, v === null ? '' : String(v))
      continue
    }
    const q = x.query?.[p.macro] ?? (stored && Object.hasOwn(stored, p.macro) ? stored[p.macro] : undefined)
    // Not a parameter of this visit: the braces were the page's own (CSS, a script), left as written.
    out += typeof q === 'string' ? fillSlot(p, q) : `{${p.macro}}`
  }
  return out
}

/** The /r link that continues `clickId` in `route` (relative without a public URL). */
export function offerUrl(publicUrl: string | null, route: CampaignRoute | null, clickId: string | null): string {
  if (!route) return '#'
  const base = `${publicUrl ?? ''}/r/${encodeMacroValue(route.slug)}`
  return clickId ? `${base}?click_id=${clickId}` : base
}

/** pixel.js with what it reports, just before </body> (or at the end of a page without one). */
export function injectPixel(html: string, src: string, data: { clickId: string | null; landingId: number; campaignId: number | null; formToken: string }): string {
  const tag = `<script src="${escapeHtml(src)}" data-click-id="${escapeHtml(data.clickId ?? '')}" data-landing-id="${data.landingId}" ` +
    `data-campaign-id="${data.campaignId ?? ''}" data-form-token="${escapeHtml(data.formToken)}" async></script>`
  const at = html.toLowerCase().lastIndexOf('</body>')
  return at === -1 ? html + tag : html.slice(0, at) + tag + html.slice(at)
}

/** Landing pages by slug, compiled once; dropped whenever the catalog changes (on any instance). */
export class LandingPages {
  private readonly pages = new Map<string, Promise<LandingPage | null>>()
  /** Scanners ask for random slugs: the cache of misses is bounded. */
  private static readonly MAX = 10_000

  constructor(private readonly find: (slug: string) => Promise<LandingRow | undefined>) {}

  get(slug: string): Promise<LandingPage | null> {
    let p = this.pages.get(slug)
    if (!p) {
      if (this.pages.size >= LandingPages.MAX) this.pages.clear()
      p = this.find(slug).then((row) => (row ? compilePage(row) : null))
      // A failed read is not cached: the next request tries again.
      p.catch(() => this.pages.delete(slug))
      this.pages.set(slug, p)
    }
    return p
  }

  /** A load in flight when the catalog changes is dropped with the rest, so it never outlives the change. */
  invalidate(): void {
    this.pages.clear()
  }
}
