// Read-only MCP resources an agent can pull into its context: the scope list, its own token, a campaign,
// a report. Each is read through a verb with the token's scopes, like a tool.
import type { AdminUser, AgentIdentity } from '../../lib/permissions'
import { adminActor, invoke, viewOf, type Verb } from '../../lib/verb'
import { RESOURCES, SCOPES, type ResourceName } from '../scopes'

type Json = Record<string, unknown>

export const STATIC_RESOURCES = [
  { uri: 'svc://scopes', name: 'scopes', title: 'Agent scopes', description: 'The 42 scopes (21 resources × read/write) and what each resource covers', mimeType: 'application/json' },
  { uri: 'svc://token', name: 'token', title: 'This token', description: "The calling token's name, scopes and rate limits", mimeType: 'application/json' },
]

export const RESOURCE_TEMPLATES = [
  { uriTemplate: 'svc://campaigns/{id}', name: 'campaign', title: 'A campaign', description: 'One campaign with its offer and landing rotations (needs campaigns:read)', mimeType: 'application/json' },
  { uriTemplate: 'svc://reports/{group_by}', name: 'report', title: 'A report', description: 'The report of the last 7 days grouped by campaign, source, offer, landing, day, … (needs reports:read); use get_report for other ranges and filters', mimeType: 'application/json' },
]

export class ResourceNotFound extends Error {}

/** The JSON of a resource uri; a verb's AppError (missing scope, unknown id) propagates. */
export async function readResource(uri: string, user: AdminUser & { agent: AgentIdentity }, verbs: ReadonlyMap<string, Verb>): Promise<Json> {
  const actor = adminActor(user)
  if (uri === 'svc://scopes') {
    return { scopes: SCOPES.map((scope) => { const r = scope.split(':')[0] as ResourceName; return { scope, covers: RESOURCES[r].covers } }) }
  }
  if (uri === 'svc://token') {
    const { tokenId, name, scopes, rates } = user.agent
    return { id: tokenId, name, scopes: [...scopes], rate_limits: rates }
  }
  const campaign = /^svc:\/\/campaigns\/(\d{1,15})$/.exec(uri)
  if (campaign) {
    const get = verbs.get('catalog.campaigns.get')!
    return viewOf(get, await invoke(get, actor, { id: Number(campaign[1]) } as never)) as Json
  }
  const report = /^svc:\/\/reports\/([a-z0-9_,]{1,40})$/.exec(uri)
  if (report) {
    const to = new Date()
    const from = new Date(to.getTime() - 7 * 86_400_000)
    return (await invoke(verbs.get('reports.run')!, actor, { group_by: report[1], from: from.toISOString(), to: to.toISOString() } as never)) as Json
  }
  throw new ResourceNotFound(`unknown resource ${uri}`)
}
