// A targeting path's numbers for the editor's period (group_by=path of the campaign): clicks, conversions,
// CR, EPC, profit and ROI, redrawn when the editor's numbers load.
import { h, mount } from '../../dom'
import type { EditorNumbers } from './editor-data'
import { numbersCell, type Col } from './numbers'

export const PATH_COLS: Col[] = ['clicks', 'conversions', 'cr', 'epc', 'profit', 'roi']

export function pathNumbers(n: EditorNumbers, pathId: number | null): HTMLElement {
  const el = h('div', { class: 'n-path', 'data-path-numbers': pathId ?? 0 })
  n.on(() => {
    if (!n.data) return mount(el, n.error ? '' : 'Loading numbers…')
    mount(el, numbersCell(n.data.path(pathId), PATH_COLS, n.data.currency))
  })
  if (!n.data) mount(el, 'Loading numbers…')
  return el
}
