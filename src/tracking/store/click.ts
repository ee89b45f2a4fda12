// Placeholder until the click store lands: the shape of a committed click as events carry it.
export interface CommittedClick {
  clickId: string
  row: number
}
