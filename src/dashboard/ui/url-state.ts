// A screen's state in its URL (issue 30): `#/reports?group_by=sub3&period=7d…`, so a view can be bookmarked,
// shared and reopened as it was. Screens write their state with replaceState: the address changes without a
// hashchange, so the app does not render the screen again (and the browser's Back leaves the screen, not each
// sort click).

/** The current hash route's query. */
export function currentParams(): URLSearchParams {
  const hash = location.hash.replace(/^#/, '')
  const i = hash.indexOf('?')
  return new URLSearchParams(i === -1 ? '' : hash.slice(i + 1))
}

/** Replaces the current route's query with `params` (empty values left out), without re-rendering. */
export function writeParams(params: URLSearchParams): void {
  const hash = location.hash.replace(/^#/, '')
  const path = hash.split('?')[0] || '/'
  const clean = new URLSearchParams()
  for (const [k, v] of params) if (v !== '') clean.append(k, v)
  const query = clean.toString()
  history.replaceState(history.state, '', `#${path}${query ? `?${query}` : ''}`)
}
