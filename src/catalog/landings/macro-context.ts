// Where each `{macro}` of a landing's html sits, worked out once when the page is compiled (and checked when it
// is saved), so that rendering only escapes each value for its place: a small HTML tokenizer (tags, attributes,
// comments, raw text elements, foreign content) and, inside scripts, a small JavaScript lexer (strings,
// template literals, comments, regular expressions). When the structure around a macro cannot be told for
// sure, the macro is refused (a known macro) or left as written (any other name: the page's own braces).
//
// What a value becomes, by place:
//   text, title/textarea, quoted attribute      HTML-escaped
//   comment, CDATA, unquoted attribute (part)   every character but ASCII letters and digits as &#N;
//   unquoted attribute (the whole value)        quoted: "…" HTML-escaped
//   URL attribute, at the start of the value    scheme checked (http, https, mailto, tel or relative; anything
//                                               else becomes about:blank), then escaped as above
//   URL attribute, after the scheme/path began  percent-encoded as a URL component, then escaped as above
//   script string ('…' "…" `…`) or comment      \uXXXX for everything but letters, digits, space and _ . , : @
//   script code, outside any string             a known macro: a quoted string literal ("…", escaped as above);
//                                               any other name is the script's own braces: left as written
//   event handler (on*), style, srcdoc, tag or attribute names, meta http-equiv/refresh, script type,
//   import maps, javascript:/data: URLs, where code is loaded from (script src, link href, base href,
//   object/embed/iframe at the start of the URL), regular expressions, anything ambiguous: refused at save
//   (400); a page saved before this rule shows such a macro as written.
import { escapeHtml } from '../../lib/html'

/** How a value is turned into a URL before it is escaped. */
export const Url = { None: 0, Start: 1, StartOpen: 2, Component: 3 } as const
export type Url = (typeof Url)[keyof typeof Url]
/** How a value is escaped for its place. */
export const Esc = { Html: 0, Quoted: 1, Entities: 2, JsString: 3, JsLiteral: 4 } as const
export type Esc = (typeof Esc)[keyof typeof Esc]

/** A macro the page fills: its name and how its value is escaped. */
export interface MacroSlot { macro: string; known: boolean; url: Url; esc: Esc }

/** A macro that cannot be filled safely where it stands. */
export interface MacroProblem { macro: string; context: string }

/** A compiled template: literal html and slots, in order; the problems are what a save refuses. */
export interface MacroAnalysis { parts: (string | MacroSlot)[]; problems: MacroProblem[] }

type Cls = { url: Url; esc: Esc } | { never: true } | { refuse: string }

const NEVER: Cls = { never: true }
const HTML: Cls = { url: Url.None, esc: Esc.Html }
const COMMENT: Cls = { url: Url.None, esc: Esc.Entities }
const JS_STRING: Cls = { url: Url.None, esc: Esc.JsString }
const refuse = (context: string): Cls => ({ refuse: context })

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const WS = /[\t\n\f\r ]/
const ALPHA = /[A-Za-z]/
const RAW_TEXT = new Set(['style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'title', 'textarea'])
const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'poster', 'srcset', 'imagesrcset', 'xlink:href', 'data', 'cite',
  'ping', 'background', 'codebase', 'longdesc', 'manifest', 'icon', 'lowsrc', 'dynsrc', 'usemap', 'profile', 'classid', 'archive', 'code'])
/** SVG animation values can set an href. */
const FOREIGN_URL_ATTRS = new Set(['to', 'from', 'values', 'by'])
const JS_TYPES = new Set(['', 'module', 'text/javascript', 'application/javascript', 'application/ecmascript', 'application/x-ecmascript',
  'application/x-javascript', 'text/ecmascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2', 'text/javascript1.3',
  'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript', 'text/x-ecmascript', 'text/x-javascript'])
/** Known macros whose value the server makes (a URL no visitor chooses). */
const SERVER_URLS = new Set(['offer_url'])
const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto', 'tel'])
const SCRIPT_SCHEMES = new Set(['javascript', 'vbscript', 'data'])

/**
 * Does this attribute say where code or a page is loaded from, or where a form is sent? Then a visitor must
 * not choose the host (a script from elsewhere, or the lead form's answers posted elsewhere).
 */
function loadsCode(tag: string, attr: string): boolean {
  if (attr === 'action' || attr === 'formaction') return true
  switch (tag) {
    case 'script': return attr === 'src' || attr === 'href' || attr === 'xlink:href'
    case 'link': return attr === 'href' || attr === 'imagesrcset'
    case 'base': return attr === 'href'
    case 'object': return attr === 'data' || attr === 'codebase' || attr === 'classid' || attr === 'archive'
    case 'embed': case 'iframe': case 'frame': return attr === 'src'
    case 'applet': return true
    default: return false
  }
}

/** The characters an attribute's literal text stands for, as far as a URL's scheme and host go. */
function decodeRefs(s: string): string {
  if (!s.includes('&')) return s
  // Names are case-sensitive (&Colon; is another character).
  const named: Record<string, string> = { colon: ':', sol: '/', quest: '?', num: '#', Tab: '\t', NewLine: '\n', amp: '&', bsol: '\\', period: '.' }
  return s.replace(/&(?:#[xX]([0-9a-fA-F]+)|#([0-9]+)|([A-Za-z]+));?/g, (all, hex?: string, dec?: string, name?: string) => {
    if (hex || dec) {
      const n = parseInt((hex ?? dec)!, hex ? 16 : 10)
      return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '\ufffd'
    }
    return Object.hasOwn(named, name!) ? named[name!]! : all
  })
}

/** Scheme and host settled by `p` (the literal start of a URL attribute, macros as \0) so code cannot come from elsewhere? */
function hostSettled(p: string): boolean {
  return /^(?:https?:)?[/\\]{2}[^/\\?#\0]+[/\\?#]/i.test(p) || /^[/\\](?![/\\])/.test(p) || /^[^:/\\?#\0]*[/\\?#]/.test(p)
}

/** Raw text elements inside raw text elements are parsed as HTML too, to this depth (then: uncertain). */
const MAX_NESTED = 3
/** Does the text before `pos` end like `<`, `</ti`, `<!-` (what a value could turn into a tag or comment)? */
function markupOpen(html: string, pos: number, from: number): boolean {
  let k = pos - 1
  while (k >= from && pos - k <= 80) {
    const c = html.charCodeAt(k)
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45) k--
    else break
  }
  if (k < from) return false
  const c = html.charCodeAt(k)
  if (c === 60) return true
  return (c === 33 || c === 47 || c === 63) && k - 1 >= from && html.charCodeAt(k - 1) === 60
}

interface Macro { start: number; end: number; name: string }
interface Attr { name: string; quoted: boolean; vs: number; ve: number }

/** Macros every landing knows; any other `{name}` is a visitor query parameter (left as written when absent). */
export const LANDING_MACROS = ['click_id', 'offer_url', 'campaign_id', 'landing_id', 'source_id', 'offer_id', 'external_id',
  'sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10'] as const
const KNOWN = new Set<string>(LANDING_MACROS)
const isKnown = (name: string) => KNOWN.has(name)

/** A landing's html as literal parts and macro slots, each escaped for its place; `problems` are what a save refuses. */
export function analyzeMacros(html: string): MacroAnalysis {
  const macros: Macro[] = []
  const at = new Map<number, number>()
  // What /\{([A-Za-z0-9_]{1,64})\}/g finds, without a regex (a 1 MB page of macros stays fast).
  for (let i = html.indexOf('{'); i !== -1; i = html.indexOf('{', i + 1)) {
    let j = i + 1
    while (j < html.length && j - i <= 65 && isWordChar(html.charCodeAt(j))) j++
    if (j > i + 1 && j - i <= 65 && html.charCodeAt(j) === 125) {
      at.set(i, macros.length)
      macros.push({ start: i, end: j + 1, name: html.slice(i + 1, j) })
      i = j
    }
  }
  const cls: (Cls | undefined)[] = new Array(macros.length)
  if (macros.length === 0) return { parts: html === '' ? [] : [html], problems: [] }
  const lower = html.toLowerCase()
  let uncertainFrom = Infinity
  const inert: { from: number; to: number; context: string | null }[] = []

  const set = (i: number, c: Cls) => { if (cls[i] === undefined) cls[i] = c }
  /** The index of the first macro starting at or after `pos` (macros are in document order). */
  const firstFrom = (pos: number) => {
    let lo = 0
    let hi = macros.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (macros[mid]!.start < pos) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  /** Indexes of the macros starting within [from, to). */
  const within = (from: number, to: number) => {
    const out: number[] = []
    for (let k = firstFrom(from); k < macros.length && macros[k]!.start < to; k++) out.push(k)
    return out
  }
  /** Every macro within [from, to) gets `c` (unless already placed). */
  const setRange = (from: number, to: number, c: Cls) => {
    for (let k = firstFrom(from); k < macros.length && macros[k]!.start < to; k++) set(k, c)
  }
  const uncertain = (from: number) => { uncertainFrom = Math.min(uncertainFrom, from) }
  /** The first `</name` closing a raw text element at or after `from` (or -1). */
  const closing = (name: string, from: number, to: number) => {
    let k = from
    for (;;) {
      k = lower.indexOf(`</${name}`, k)
      if (k === -1 || k >= to) return -1
      const after = html[k + 2 + name.length]
      if (after === undefined || WS.test(after) || after === '/' || after === '>') return k
      k += 2
    }
  }
  /** Where `</name` ends a raw text element: the closing tag, or the end of the document (or region). */
  const rawEnd = (name: string, from: number, to: number) => { const k = closing(name, from, to); return k === -1 ? to : k }

  function classifyAttrs(tag: string, attrs: Attr[], foreign: boolean) {
    const names = new Set(attrs.map((a) => a.name))
    for (const a of attrs) {
      if (a.vs < 0) continue
      const ks = within(a.vs, a.ve)
      if (ks.length === 0) continue
      const inValue = ks.map((k) => macros[k]!)
      let context: string | null = null
      if (a.name.startsWith('on')) context = `an event handler attribute (${a.name})`
      else if (a.name === 'style') context = 'a style attribute'
      else if (a.name === 'srcdoc') context = 'an iframe srcdoc attribute'
      else if (tag === 'meta' && (a.name === 'http-equiv' || (a.name === 'content' && names.has('http-equiv')))) context = 'a meta http-equiv tag'
      else if (tag === 'script' && (a.name === 'type' || a.name === 'language')) context = 'a script type'
      else if (a.name === 'is') context = 'an is attribute'
      if (context) { for (const k of ks) set(k, refuse(context)); continue }
      const isUrl = URL_ATTRS.has(a.name) || (foreign && FOREIGN_URL_ATTRS.has(a.name))
      const loads = isUrl && loadsCode(tag, a.name)
      for (const k of ks) {
        const m = macros[k]!
        // {offer_url} is made here (the /r link), never by a visitor: it may say where a form goes.
        const code = loads && !SERVER_URLS.has(m.name)
        const whole = !a.quoted && m.start === a.vs && m.end === a.ve
        const esc = a.quoted ? Esc.Html : whole ? Esc.Quoted : Esc.Entities
        if (!isUrl) { set(k, { url: Url.None, esc }); continue }
        // The value before and after the macro, other macros as \0, as the URL parser reads it.
        const text = (from: number, to: number) => {
          let s = ''
          let p = from
          for (const o of inValue) {
            if (o.start < from || o.start >= to) continue
            s += decodeRefs(html.slice(p, o.start)) + '\0'
            p = o.end
          }
          return (s + decodeRefs(html.slice(p, to))).replace(/[\t\n\r]/g, '')
        }
        const prefix = text(a.vs, m.start).replace(/^[\x00-\x20]+/, (w) => w.replace(/[^\0]/g, ''))
        const suffix = text(m.end, a.ve).replace(/[\x00-\x20]+$/, (w) => w.replace(/[^\0]/g, ''))
        if (prefix === '') {
          if (code) { set(k, refuse(`the start of a ${tag} ${a.name} (where code is loaded from or a form is sent)`)); continue }
          const closed = suffix === '' || /^[/\\?#]/.test(suffix)
          set(k, { url: closed ? Url.Start : Url.StartOpen, esc })
          continue
        }
        const first = prefix.search(/[:/?#\0]/)
        const scheme = first >= 0 && prefix[first] === ':' ? prefix.slice(0, first).toLowerCase() : null
        if (scheme !== null && SCRIPT_SCHEMES.has(scheme)) { set(k, refuse(`a ${scheme}: URL (${a.name})`)); continue }
        if (code && !(hostSettled(prefix) && (scheme === null || scheme === 'http' || scheme === 'https'))) {
          set(k, refuse(`the host part of a ${tag} ${a.name} (where code is loaded from or a form is sent)`))
          continue
        }
        if (first === -1 || (prefix[first] === '\0' && first > 0)) {
          // Still inside what could be a scheme (`java{x}`): encoded, it cannot add a ':' itself, but the text after must not.
          const next = suffix.search(/[:/?#]/)
          if (next >= 0 && suffix[next] === ':') { set(k, refuse(`the scheme of a URL (${a.name})`)); continue }
        }
        set(k, { url: Url.Component, esc })
      }
    }
  }

  /** A script's content: a JavaScript (or JSON) lexer says, for each macro, string, comment, code or regex. */
  function lexScript(from: number, to: number, known: (m: Macro) => boolean) {
    type State = 'code' | 'sq' | 'dq' | 'tpl' | 'line' | 'block' | 're' | 'reClass'
    let state: State = 'code'
    /** May a `/` here start a regular expression? 'ambiguous' where no lexer without a parser can tell. */
    let slash: 'regex' | 'div' | 'ambiguous' = 'regex'
    let lineStart = true
    const parens: boolean[] = []
    const tpl: number[] = []
    let depth = 0
    let lastWord = ''
    let unsure = false
    let i = from
    while (i < to) {
      const mi = at.get(i)
      if (mi !== undefined) {
        const m = macros[mi]!
        const isKnown = known(m)
        const code = state === 'code'
        if (markupOpen(html, m.start, from)) set(mi, isKnown ? refuse('markup (right after "<")') : NEVER)
        else if (unsure) set(mi, isKnown ? refuse('a script after a "/" that may start a regular expression') : NEVER)
        else if (code) set(mi, isKnown ? { url: Url.None, esc: Esc.JsLiteral } : NEVER)
        else if (state === 're' || state === 'reClass') set(mi, isKnown ? refuse('a regular expression in a script') : NEVER)
        else set(mi, JS_STRING)
        // In code, a known macro is a string literal (an expression); any other name is the script's own
        // braces, lexed as written. Elsewhere the macro is part of the string, comment or expression.
        if (!code || isKnown) {
          i = m.end
          if (code) { slash = 'div'; lineStart = false }
          continue
        }
      }
      const c = html[i]!
      switch (state) {
        case 'sq': case 'dq': {
          if (c === '\\') { i += at.has(i + 1) ? 1 : 2; continue }
          if ((c === "'" && state === 'sq') || (c === '"' && state === 'dq')) { state = 'code'; slash = 'div' }
          else if (c === '\n' || c === '\r') state = 'code' // an unterminated string: a syntax error, the script does not run
          i++
          continue
        }
        case 'tpl': {
          if (c === '\\') { i += at.has(i + 1) ? 1 : 2; continue }
          if (c === '`') { state = 'code'; slash = 'div' }
          else if (c === '$' && at.has(i + 1)) {
            // `${name}`: the page's own interpolation when left as written (any other name); filled (a known
            // macro), it is `$` and text. Either way the template goes on after it.
            const k = at.get(i + 1)!
            if (!markupOpen(html, i + 1, from)) set(k, known(macros[k]!) ? JS_STRING : NEVER)
            else set(k, known(macros[k]!) ? refuse('markup (right after "<")') : NEVER)
            i = macros[k]!.end
            continue
          } else if (c === '$' && html[i + 1] === '{') { tpl.push(depth); depth++; state = 'code'; slash = 'regex'; i += 2; continue }
          i++
          continue
        }
        case 'line':
          if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') { state = 'code'; lineStart = true }
          i++
          continue
        case 'block':
          if (c === '*' && html[i + 1] === '/') { state = 'code'; i += 2; continue }
          if (c === '\n' || c === '\r') lineStart = true
          i++
          continue
        case 're': case 'reClass':
          if (c === '\\') { i += at.has(i + 1) ? 1 : 2; continue }
          if (c === '\n' || c === '\r') { state = 'code'; i++; continue }
          if (state === 'reClass') { if (c === ']') state = 're'; i++; continue }
          if (c === '[') state = 'reClass'
          else if (c === '/') { state = 'code'; slash = 'div'; i++; while (i < to && /[A-Za-z]/.test(html[i]!)) i++; continue }
          i++
          continue
      }
      // code
      if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') { lineStart = true; i++; continue }
      if (c === ' ' || c === '\t' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\ufeff') { i++; continue }
      const wasLineStart: boolean = lineStart
      lineStart = false
      if (c === "'") { state = 'sq'; i++; continue }
      if (c === '"') { state = 'dq'; i++; continue }
      if (c === '`') { state = 'tpl'; i++; continue }
      if (c === '/') {
        const n = html[i + 1]
        if (n === '/') { state = 'line'; i += 2; continue }
        if (n === '*') { state = 'block'; i += 2; lineStart = wasLineStart; continue }
        if (slash === 'ambiguous') unsure = true
        if (slash === 'regex') { state = 're'; i++; continue }
        slash = 'regex'
        i++
        continue
      }
      if (html.startsWith('<!--', i)) { state = 'line'; i += 4; continue }
      if (wasLineStart && html.startsWith('-->', i)) { state = 'line'; i += 3; continue }
      if (/[A-Za-z0-9_$\\\u0080-\uffff]/.test(c)) {
        let j = i + 1
        while (j < to && !at.has(j) && /[A-Za-z0-9_$\\\u0080-\uffff]/.test(html[j]!)) j++
        const word = html.slice(i, j)
        lastWord = word
        slash = /^(?:return|typeof|instanceof|in|new|delete|void|throw|case|do|else|extends)$/.test(word) ? 'regex'
          : /^(?:of|yield|await|let|async|get|set|static)$/.test(word) ? 'ambiguous' : 'div'
        i = j
        continue
      }
      if (c === '(') { parens.push(/^(?:if|while|for|with)$/.test(lastWord)); lastWord = ''; slash = 'regex'; i++; continue }
      lastWord = ''
      if (c === ')') { slash = parens.pop() ? 'regex' : 'div'; i++; continue }
      if (c === ']') { slash = 'div'; i++; continue }
      if (c === '{') { depth++; slash = 'regex'; i++; continue }
      if (c === '}') {
        depth--
        if (tpl.length && tpl[tpl.length - 1] === depth) { tpl.pop(); state = 'tpl'; i++; continue }
        slash = 'ambiguous'
        i++
        continue
      }
      if ((c === '+' || c === '-') && html[i + 1] === c) { slash = 'ambiguous'; i += 2; continue }
      slash = 'regex'
      i++
    }
  }

  /**
   * HTML from `from` to `to` in the data state, `foreign` levels deep in svg/math. True when it ends there in the
   * data state (not inside a tag, comment or raw text element): a region parsed this way ends where the browser's does.
   */
  function parse(from: number, to: number, foreign: number, nested = 0): boolean {
    let i = from
    const textMacro = (mi: number) => {
      const m = macros[mi]!
      // `<{x}`, `</ti{x}`, `<!-{x}`: the value could finish a tag, an end tag or a comment opener.
      set(mi, markupOpen(html, m.start, from) ? refuse('markup (right after "<")') : HTML)
    }
    const toComment = (start: number, end: number): number => {
      setRange(start, end, COMMENT)
      return end
    }
    while (i < to) {
      const mi = at.get(i)
      if (mi !== undefined) { textMacro(mi); i = macros[mi]!.end; continue }
      if (html[i] !== '<') { i++; continue }
      const n = html[i + 1] ?? ''
      if (ALPHA.test(n) || (n === '/' && ALPHA.test(html[i + 2] ?? ''))) {
        const end = n === '/'
        const r = tag(i, to, end, foreign)
        if (r === null) return false
        i = r.next
        if (end) { if ((r.name === 'svg' || r.name === 'math') && foreign > 0) foreign--; continue }
        if (r.name === 'frameset') uncertain(i)
        if (r.selfClosing && foreign > 0) continue
        if (r.name === 'svg' || r.name === 'math') { if (!r.selfClosing) foreign++; continue }
        if (r.name === 'plaintext') { setRange(i, to, foreign ? refuse('plaintext inside svg/math') : HTML); if (foreign) uncertain(i); return false }
        if (r.name === 'script') {
          const e = rawEnd('script', i, to)
          if (foreign) {
            if (nested >= MAX_NESTED || !parse(i, e, foreign, nested + 1)) uncertain(i)
            inert.push({ from: i, to: e, context: null })
          } else {
            const body = lower.slice(i, e)
            const open = body.indexOf('<!--')
            if (open >= 0 && /<script[\t\n\f\r />]/.test(body.slice(open))) uncertain(i)
            const type = scriptType(r.attrs)
            if (type === 'js' || type === 'json') lexScript(i, e, (m) => isKnown(m.name))
            else if (type === 'importmap') setRange(i, e, refuse(`a script of type ${r.typeText}`))
            else inert.push({ from: i, to: e, context: null })
          }
          if (e === to) return false
          i = e
          continue
        }
        if (RAW_TEXT.has(r.name)) {
          const e = rawEnd(r.name, i, to)
          // Parsed as HTML as well (what a browser that did not switch modes would see): safe either way, and
          // where that parse would not end with the element, everything after is uncertain.
          if (nested >= MAX_NESTED || !parse(i, e, foreign, nested + 1)) uncertain(i)
          if (r.name === 'style') inert.push({ from: i, to: e, context: foreign ? 'a style element inside svg/math' : 'a style element' })
          if (e === to) return false
          i = e
          continue
        }
        continue
      }
      if (n === '/' && html[i + 2] === '>') { i += 3; continue }
      if (n === '!' && html.startsWith('--', i + 2)) {
        const body = i + 4
        let end: number
        if (html[body] === '>') end = body + 1
        else if (html.startsWith('->', body)) end = body + 2
        else {
          const a = html.indexOf('-->', i + 2)
          const r = html.slice(body, a === -1 ? html.length : a + 3).indexOf('--!>')
          const b = r === -1 ? -1 : body + r
          end = a !== -1 && (b === -1 || a < b) ? a + 3 : b !== -1 ? b + 4 : Infinity
        }
        if (end > to) { toComment(i, to); return false }
        i = toComment(i, end)
        continue
      }
      if (n === '!' && foreign > 0 && html.startsWith('[CDATA[', i + 2)) {
        const e = html.indexOf(']]>', i + 9)
        if (e === -1 || e + 3 > to) { toComment(i, to); return false }
        // Should the browser see a bogus comment instead (out of foreign content), it ends at the first '>'.
        if (html.slice(i + 9, e).includes('>')) uncertain(i)
        i = toComment(i, e + 3)
        continue
      }
      if (n === '!' || n === '?' || n === '/') {
        const e = html.indexOf('>', i + 2)
        if (e === -1 || e + 1 > to) { toComment(i, to); return false }
        i = toComment(i, e + 1)
        continue
      }
      i++
    }
    return true
  }

  function scriptType(attrs: Attr[]): 'js' | 'json' | 'importmap' | 'data' {
    const value = (name: string) => {
      const a = attrs.find((x) => x.name === name)
      return a ? (a.vs < 0 ? '' : html.slice(a.vs, a.ve)) : null
    }
    let type = value('type')
    if (type === null || type.trim() === '') {
      const language = value('language')
      type = language ? `text/${language}` : ''
    }
    const essence = type.split(';')[0]!.trim().toLowerCase()
    if (JS_TYPES.has(essence)) return 'js'
    if (essence === 'importmap' || essence === 'speculationrules') return 'importmap'
    if (/^application\/(?:[a-z0-9.+-]*\+)?json$/.test(essence) || essence === 'text/json') return 'json'
    return 'data'
  }

  /** A tag from `<` at `i`: its name, attributes and where it ends (null when it does not end before `to`). */
  function tag(i: number, to: number, end: boolean, foreign: number):
    { next: number; name: string; attrs: Attr[]; selfClosing: boolean; typeText: string } | null {
    let j = i + (end ? 2 : 1)
    const ns = j
    while (j < to && !WS.test(html[j]!) && html[j] !== '/' && html[j] !== '>') j++
    setRange(ns, j, refuse(end ? 'an end tag' : 'a tag name'))
    const name = lower.slice(ns, j)
    const attrs: Attr[] = []
    let selfClosing = false
    for (;;) {
      while (j < to && (WS.test(html[j]!) || html[j] === '/')) { selfClosing = html[j] === '/'; j++ }
      if (j >= to) break
      if (html[j] === '>') {
        j++
        if (end) setRange(i, j, refuse('an end tag'))
        else classifyAttrs(name, attrs, foreign > 0)
        const type = attrs.find((a) => a.name === 'type')
        return { next: j, name, attrs, selfClosing, typeText: type && type.vs >= 0 ? html.slice(type.vs, type.ve) : '' }
      }
      selfClosing = false
      const as = j
      j++
      while (j < to && !WS.test(html[j]!) && html[j] !== '/' && html[j] !== '>' && html[j] !== '=') j++
      setRange(as, j, refuse('an attribute name'))
      const aname = lower.slice(as, j)
      while (j < to && WS.test(html[j]!)) j++
      if (html[j] !== '=' || j >= to) { attrs.push({ name: aname, quoted: false, vs: -1, ve: -1 }); continue }
      j++
      while (j < to && WS.test(html[j]!)) j++
      const q = html[j]
      if (q === '"' || q === "'") {
        const e = html.indexOf(q, j + 1)
        if (e === -1 || e >= to) { j = to; break }
        attrs.push({ name: aname, quoted: true, vs: j + 1, ve: e })
        j = e + 1
        continue
      }
      const vs = j
      while (j < to && !WS.test(html[j]!) && html[j] !== '>') j++
      attrs.push({ name: aname, quoted: false, vs, ve: j })
    }
    // The document (or region) ends inside the tag.
    setRange(i, to, refuse('an unfinished tag'))
    return null
  }

  parse(0, html.length, 0)

  // Regions whose macros are never filled: style (refused, any name) and non-JavaScript or foreign scripts
  // (a known macro refused, any other name left as written). A style region wins over a script one.
  const region: (string | null | undefined)[] = new Array(macros.length)
  for (const r of inert) for (const k of within(r.from, r.to)) if (region[k] === undefined || region[k] === null) region[k] = r.context
  const parts: (string | MacroSlot)[] = []
  const problems: MacroProblem[] = []
  let literal = ''
  let last = 0
  macros.forEach((m, k) => {
    const known = isKnown(m.name)
    // Not placed: inside what was skipped once the structure became uncertain (raw text nested too deep).
    let c = cls[k] ?? (m.start >= uncertainFrom ? NEVER : refuse('an unknown place'))
    const r = region[k]
    if (r !== undefined) c = r !== null ? refuse(r) : known ? refuse('a script that is not JavaScript or JSON, or inside svg/math') : NEVER
    if (m.start >= uncertainFrom && !('refuse' in c)) c = known ? refuse('markup whose structure cannot be told for sure (an svg/math raw text element, a frameset, a script holding "<!--<script")') : NEVER
    literal += html.slice(last, m.start)
    last = m.end
    if ('refuse' in c) problems.push({ macro: m.name, context: c.refuse })
    if ('url' in c) {
      if (literal !== '') parts.push(literal)
      literal = ''
      parts.push({ macro: m.name, known, url: c.url, esc: c.esc })
    } else {
      literal += html.slice(m.start, m.end) // left as written
    }
  })
  literal += html.slice(last)
  if (literal !== '') parts.push(literal)
  return { parts, problems }
}

// ---- escapers (render time: one switch per slot) ----

const hex4 = (n: number) => n.toString(16).padStart(4, '0')

/** Inside a JavaScript (or JSON) string, template literal or comment: nothing can end it, nor the script. */
export const escapeJsString = (v: string) => v.replace(/[^A-Za-z0-9 _.,:@]/g, (c) => `\\u${hex4(c.charCodeAt(0))}`)

/** Every character but ASCII letters and digits as a numeric character reference (unquoted attributes, comments). */
export const escapeEntities = (v: string) => v.replace(/[^A-Za-z0-9]/gu, (c) => `&#${c.codePointAt(0)};`)

/** A whole URL from a visitor: http, https, mailto, tel or relative; anything else is about:blank. `open`: text follows it. */
export function safeUrl(v: string, open: boolean): string {
  const w = v.replace(/[\t\n\r]/g, '').replace(/^[\x00-\x20]+/, '')
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(w)
  if (scheme) return ALLOWED_SCHEMES.has(scheme[1]!.toLowerCase()) ? v : 'about:blank'
  // `{x}:…` or `{x}{y}`: a value that could still become a scheme with what follows is made plainly relative.
  if (open && /^[A-Za-z0-9+.-]*$/.test(w)) return `./${v}`
  return v
}

function encodeComponent(v: string): string {
  try {
    return encodeURIComponent(v)
  } catch {
    return encodeURIComponent(v.toWellFormed())
  }
}

/** `value` escaped for `slot`'s place. */
export function fillSlot(slot: MacroSlot, value: string): string {
  let v = value
  switch (slot.url) {
    case Url.Start: v = safeUrl(v, false); break
    case Url.StartOpen: v = safeUrl(v, true); break
    case Url.Component: v = encodeComponent(v); break
  }
  switch (slot.esc) {
    case Esc.Html: return escapeHtml(v)
    case Esc.Quoted: return `"${escapeHtml(v)}"`
    case Esc.Entities: return escapeEntities(v)
    case Esc.JsString: return escapeJsString(v)
    case Esc.JsLiteral: return `"${escapeJsString(v)}"`
  }
}
