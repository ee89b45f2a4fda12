// The small HTML pages people see outside the admin (an email link, a dead landing link): constant text,
// nothing from the request echoed; only a form posting back to the same page may run.
import { htmlPageHeaders } from './security-headers'
import { escapeHtml } from '../lib/html'

/** Only a form posting back to this page may run; nothing else loads. */
const PAGE_HEADERS = htmlPageHeaders({ 'form-action': ["'self'"] })

/** A small page of constant text (nothing from the request is echoed). */
export function infoPage(status: number, title: string, text: string, extra = ''): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${extra}</body></html>`
  return new Response(html, { status, headers: PAGE_HEADERS })
}
