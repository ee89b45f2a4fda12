// What browsers send to a hosted landing's endpoints, checked and recorded: lead forms (POST /api/lead),
// page views and custom events (pixel.js, client.js), and client-side bot signals (cloak.js). No HTTP here:
// public-routes.ts parses the request and shapes the answer.
import type { EventBus, Unit } from '../lib/event-bus'
import { invalid } from '../lib/errors'
import { normalizeClickId } from '../lib/click-id'
import { normalizeEmail } from '../lib/email-address'
import type { LandingRow } from '../catalog'
import type { CampaignRoute, LandingVisit, Tracker, Visitor } from '../tracking'
import { FormTokens } from './form-token'
import { offerUrl } from './pages'
import type { LeadStore, VisitorEventStore } from './store/types'

export const HONEYPOT = '_svc_hp'
export const FORM_TOKEN = '_svc_t'
/** What pixel.js, client.js and cloak.js send back: the page's signed token (form-token.ts), which names its click and landing. */
export const PAGE_TOKEN = 'token'
const OWN = new Set(['email', 'name', 'landing_id', 'click_id', HONEYPOT, FORM_TOKEN])
const MAX_FIELDS = 50
const MAX_FIELD_VALUE = 1000
const MAX_NAME = 200
const FIELD_NAME = /^[a-z0-9_]{1,40}$/
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

export interface CaptureDeps {
  leads: LeadStore
  events: VisitorEventStore
  bus: EventBus
  tracker: Tracker
  findLanding(id: number): Promise<LandingRow | undefined>
  tokens: FormTokens
  publicUrl: string | null
}

export interface LeadAnswer {
  ok: true
  redirect_url: string | null
}

function text(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (typeof v !== 'string') throw invalid(`${field}: must be a string`)
  return v
}

function landingIdOf(v: unknown): number {
  const raw = text(v, 'landing_id')
  if (raw === undefined || raw.trim() === '') throw invalid('landing_id: required')
  if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw) < 1) throw invalid('landing_id: must be a positive integer')
  return Number(raw)
}

/** The custom fields: names folded to a-z, 0-9 and _; values strings of up to 1,000 characters. */
function customFields(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  let n = 0
  for (const [key, value] of Object.entries(body)) {
    if (OWN.has(key) || key.startsWith('_svc')) continue
    const name = key.trim().toLowerCase().replace(/[\s-]+/g, '_')
    if (!FIELD_NAME.test(name)) throw invalid(`${key.slice(0, 60)}: field names are 1-40 characters a-z, 0-9, _ and -`)
    const v = text(value, name) ?? ''
    if (v.length > MAX_FIELD_VALUE) throw invalid(`${name}: must be at most ${MAX_FIELD_VALUE} characters`)
    if (CONTROL.test(v)) throw invalid(`${name}: must not contain control characters`)
    if (++n > MAX_FIELDS) throw invalid(`at most ${MAX_FIELDS} custom fields`)
    out[name] = v
  }
  return out
}

/** The lead form's fields in the order a person fixes them: email, then landing, then the rest. */
function checkLead(body: Record<string, unknown>) {
  const rawEmail = text(body.email, 'email')
  if (rawEmail === undefined || rawEmail.trim() === '') throw invalid('email: required')
  const email = normalizeEmail(rawEmail)
  if (!email) throw invalid('email: not a valid email address')
  const landingId = landingIdOf(body.landing_id)
  const rawName = text(body.name, 'name')?.trim()
  if (rawName !== undefined && rawName.length > MAX_NAME) throw invalid(`name: must be at most ${MAX_NAME} characters`)
  if (rawName !== undefined && /[\u0000-\u001f\u007f]/.test(rawName)) throw invalid('name: must not contain line breaks or control characters')
  return {
    email, landingId, name: rawName ? rawName : null, fields: customFields(body),
    clickId: text(body.click_id, 'click_id') ?? null, honeypot: text(body[HONEYPOT], HONEYPOT) ?? '', token: text(body[FORM_TOKEN], FORM_TOKEN),
  }
}

export class LandingCapture {
  constructor(private readonly deps: CaptureDeps) {}

  /**
   * POST /api/lead. A bot (honeypot filled, or the form sent sooner than a person could fill it) gets the
   * same answer as a person and leaves no lead. `visitor` is the request's (ip, user agent, cookie).
   */
  async lead(body: Record<string, unknown>, visitor: Visitor, now = Date.now()): Promise<LeadAnswer> {
    const f = checkLead(body)
    const landing = await this.deps.findLanding(f.landingId)
    if (!landing) throw invalid('landing_id: no such landing')
    const v: Visitor = { ...visitor, query: { ...visitor.query, clickId: f.clickId ?? visitor.query.clickId } }
    const fill = this.deps.tokens.check(f.token, landing.id, now)
    if (f.honeypot.trim() !== '' || fill === 'too-fast' || fill === 'forged') {
      const ready = this.deps.tracker.ready()
      if (ready) await ready
      const route = this.deps.tracker.campaignsOf(landing.id)[0]
      const clickId = normalizeClickId(v.query.clickId) ?? normalizeClickId(v.cookieClickId)
      return { ok: true, redirect_url: route ? offerUrl(null, route, clickId) : null }
    }
    let visit: LandingVisit = await this.deps.tracker.landingVisit(landing.id, v, null)
    // The click store refused (503 on a redirect): the lead is kept all the same, without its click.
    if (visit.kind === 'unavailable') visit = { kind: 'none' }
    const click = visit.kind === 'click' ? visit.click : null
    const route: CampaignRoute | null = visit.kind === 'click' ? visit.route : (this.deps.tracker.campaignsOf(landing.id)[0] ?? null)
    let unit: Unit | null = null
    await this.deps.leads.insert({
      landingId: landing.id, campaignId: route?.id ?? click?.campaignId ?? null, clickId: click?.clickId ?? null, email: f.email, name: f.name,
      fields: f.fields, ip: visitor.ip, userAgent: visitor.userAgent, createdAt: now,
    }, (row, tx) => {
      unit = this.deps.bus.unit(tx)
      return unit.emit('lead.captured', {
        leadId: row.id, landingId: landing.id, emailListId: landing.emailListId, email: f.email, name: f.name, fields: f.fields,
        clickId: row.clickId, ip: visitor.ip, createdAt: now,
      })
    })
    ;(unit as Unit | null)?.commit()
    return { ok: true, redirect_url: route ? offerUrl(null, route, click?.clickId ?? null) : null }
  }

  /**
   * The click a browser's report may be attached to: only with the page's token for this click and this
   * landing (and the landing in the click's campaign rotation, checked by noteClick). A click id alone is
   * not enough: the report is then recorded without the click.
   */
  private boundClick(input: Record<string, unknown>, clickId: string | null, landingId: number | null, now: number): string | null {
    if (clickId === null || landingId === null) return null
    return this.deps.tokens.bound(text(input[PAGE_TOKEN], PAGE_TOKEN), landingId, clickId, now) ? clickId : null
  }

  /**
   * A page view (pixel.js) or a custom event (client.js). A page view also marks the click's landing as
   * viewed (once per click: the landing_views of reports). Attached to its click only with the page's token
   * (boundClick); without it, recorded without the click.
   */
  async event(input: Record<string, unknown>, ip: string, now = Date.now()): Promise<void> {
    const name = text(input.name, 'name')
    if (name === undefined || !/^[A-Za-z0-9_.:-]{1,64}$/.test(name)) throw invalid('name: 1-64 characters A-Z, a-z, 0-9, _ . : -')
    const rawLanding = text(input.landing_id, 'landing_id')
    const landingId = rawLanding === undefined || rawLanding === '' ? null : landingIdOf(rawLanding)
    const url = text(input.url, 'url')
    if (url !== undefined && url.length > 2048) throw invalid('url: must be at most 2048 characters')
    if (url !== undefined && CONTROL.test(url)) throw invalid('url: must not contain control characters')
    let props: string | null = null
    if (input.props !== undefined && input.props !== null) {
      if (typeof input.props !== 'object' || Array.isArray(input.props)) throw invalid('props: must be an object')
      props = JSON.stringify(input.props)
      if (props.length > 2048) throw invalid('props: at most 2048 characters of JSON')
    }
    const clickId = this.boundClick(input, normalizeClickId(text(input.click_id, 'click_id') ?? null), landingId, now)
    const noted = clickId && landingId !== null ? await this.deps.tracker.noteClick(clickId, landingId, name === 'page_view' ? { viewedAt: now } : {}) : null
    await this.deps.events.insert({
      name, clickId: noted ? clickId : null, campaignId: noted?.click.campaignId ?? null, landingId: landingId ?? noted?.click.landingId ?? null,
      props, url: url ?? null, ip, createdAt: now,
    })
  }

  /**
   * cloak.js: the signals a browser reported about itself. A click with a strong signal (automation), or
   * two weak ones, is flagged as a bot (reason `cloak:<signals>`): no longer unique, cost 0, and its
   * campaign's bot_url is where the visitor is sent. Only with the page's token for that click and landing
   * (boundClick): without it nothing is flagged, the signals are recorded without the click, and no bot_url
   * is answered.
   */
  async botSignals(input: Record<string, unknown>, ip: string, now = Date.now()): Promise<{ bot: boolean; reason?: string; redirect_url?: string | null }> {
    if (!Array.isArray(input.signals)) throw invalid('signals: must be an array of signal names')
    const signals = [...new Set(input.signals.filter((s): s is string => typeof s === 'string' && SIGNALS.has(s)))].sort()
    const strong = signals.filter((s) => STRONG.has(s))
    const bot = strong.length > 0 || signals.length >= 2
    const rawLanding = text(input.landing_id, 'landing_id')
    const landingId = rawLanding === undefined || rawLanding === '' ? null : landingIdOf(rawLanding)
    const clickId = this.boundClick(input, normalizeClickId(text(input.click_id, 'click_id') ?? null), landingId, now)
    if (!bot) {
      if (signals.length > 0) await this.deps.events.insert({ name: 'bot_signals', clickId, campaignId: null, landingId: null, props: JSON.stringify({ signals, flagged: false }), url: null, ip, createdAt: now })
      return { bot: false }
    }
    const reason = `cloak:${(strong.length > 0 ? strong : signals).join('+')}`.slice(0, 64)
    const noted = clickId && landingId !== null ? await this.deps.tracker.noteClick(clickId, landingId, { botReason: reason }) : null
    await this.deps.events.insert({
      name: 'bot_signals', clickId: noted ? clickId : null, campaignId: noted?.click.campaignId ?? null, landingId: noted?.click.landingId ?? null,
      props: JSON.stringify({ signals, flagged: true }), url: null, ip, createdAt: now,
    })
    const redirect = noted ? this.deps.tracker.botLocation(noted.route, noted.click) : null
    return { bot: true, reason, redirect_url: redirect }
  }
}

/** What cloak.js reports (docs/browser-scripts.md). Strong: automation says so itself. */
const STRONG = new Set(['webdriver', 'headless'])
const SIGNALS = new Set([...STRONG, 'no_languages', 'no_plugins', 'zero_window', 'no_chrome_object', 'no_interaction'])
