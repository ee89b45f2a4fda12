// The dashboard talks only to the admin API, same origin, with the session cookie (HttpOnly: the script
// never sees it). Every write sends JSON (the admin API's CSRF defence).
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
  /** The field a 400 or 409 names ("slug: …" → "slug"; a taken slug is a 409), if any. */
  get field(): string | null {
    const m = /^([a-z_][a-z0-9_.]*): /.exec(this.message)
    return (this.status === 400 || this.status === 409) && m ? m[1]!.split('.')[0]! : null
  }
}

/** Called on every 401: the app goes back to the sign-in screen. */
let onUnauthorized: () => void = () => {}
export const whenSignedOut = (fn: () => void) => { onUnauthorized = fn }

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/admin/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? (method === 'GET' ? undefined : '{}') : JSON.stringify(body),
  })
  const text = await res.text()
  let json: any = null
  try { json = text ? JSON.parse(text) : null } catch { json = null }
  if (!res.ok) {
    if (res.status === 401 && path !== '/login') onUnauthorized()
    throw new ApiError(res.status, json?.error ?? `HTTP ${res.status}`)
  }
  return json as T
}

export interface Me { id: number; email: string; is_owner: boolean; permissions: Record<string, { read: boolean; write: boolean }>; time_zone?: string }

export const can = (me: Me, section: string, action: 'read' | 'write') => me.is_owner || me.permissions[section]?.[action] === true

/** Every page of a collection (the lists here are catalogs: hundreds at most). */
export async function all<T>(path: string): Promise<T[]> {
  const items: T[] = []
  let cursor: string | null = null
  do {
    const page: { items: T[]; next_cursor: string | null } = await api('GET', `${path}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    items.push(...page.items)
    cursor = page.next_cursor
  } while (cursor)
  return items
}
