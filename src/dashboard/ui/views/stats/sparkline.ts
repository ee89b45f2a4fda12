// A sparkline per list row: clicks per day (or per hour of a single day) as tiny bars, so a day without data
// is an empty slot rather than a line drawn through it. Inline SVG (CSP-safe, no chart library); role=img
// with a summary a screen reader can read.
const SVG = 'http://www.w3.org/2000/svg'
const W = 64
const H = 22

export function sparkline(values: number[], buckets: string[], unit: 'day' | 'hour'): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg')
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`)
  svg.setAttribute('width', String(W))
  svg.setAttribute('height', String(H))
  svg.setAttribute('class', 'spark')
  svg.setAttribute('role', 'img')
  const total = values.reduce((a, b) => a + b, 0)
  const max = Math.max(0, ...values)
  const peak = values.indexOf(max)
  const per = unit === 'hour' ? 'hour' : 'day'
  svg.setAttribute('aria-label', total === 0
    ? `No clicks in the period`
    : `Clicks per ${per}: ${total} in ${values.length} ${per}s, peak ${max} on ${unit === 'hour' ? buckets[peak]!.slice(11) : buckets[peak]}`)
  svg.dataset.values = values.join(',')
  const n = Math.max(values.length, 1)
  const slot = W / n
  values.forEach((v, i) => {
    if (v === 0) return
    const rect = document.createElementNS(SVG, 'rect')
    const height = Math.max(1, (v / max) * (H - 2))
    rect.setAttribute('x', (i * slot + slot * 0.1).toFixed(2))
    rect.setAttribute('width', Math.max(0.8, slot * 0.8).toFixed(2))
    rect.setAttribute('y', (H - height).toFixed(2))
    rect.setAttribute('height', height.toFixed(2))
    svg.append(rect)
  })
  // The baseline, so an empty period still reads as a chart.
  const base = document.createElementNS(SVG, 'line')
  base.setAttribute('x1', '0'); base.setAttribute('x2', String(W)); base.setAttribute('y1', String(H - 0.5)); base.setAttribute('y2', String(H - 0.5))
  base.setAttribute('class', 'spark-base')
  svg.append(base)
  return svg
}
