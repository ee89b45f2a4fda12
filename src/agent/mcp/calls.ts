// One tool call of an agent: scope, rate bucket, Tier-2 confirmation, the verb, the audit row. The answer is
// an MCP CallToolResult: failures an agent can act on (missing scope, rate limit, a verb's 400/404/409) are
// tool errors (isError) it can read; only an unknown tool is a protocol error (raised by the caller).
import type { AdminUser, AgentIdentity } from '../../lib/permissions'
import { AppError } from '../../lib/errors'
import { errorFields, log } from '../../lib/log'
import { iso } from '../../lib/time'
import { adminActor, invoke, viewOf, type Verb } from '../../lib/verb'
import type { AuditLog } from '../audit'
import type { AgentBuckets } from '../buckets'
import type { AgentStore } from '../store/types'
import type { Tool } from './catalog'
import { Confirmations } from './confirm'

type Json = Record<string, unknown>

export interface CallResult {
  content: Array<{ type: 'text'; text: string }>
  structuredContent?: Json
  isError?: boolean
}

export interface CallDeps {
  store: AgentStore
  verbs: () => ReadonlyMap<string, Verb>
  buckets: AgentBuckets
  audit: AuditLog
  confirmations: Confirmations
}

const ok = (structured: Json): CallResult => ({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured })
const failed = (text: string): CallResult => ({ content: [{ type: 'text', text }], isError: true })

/** A verb's expected failure as the text an agent reads: "not_found: campaign not found". */
const errorText = (err: AppError) => `${err.code}: ${err.message}`

export class AgentCalls {
  constructor(private readonly deps: CallDeps) {}

  async call(user: AdminUser & { agent: AgentIdentity }, tool: Tool, rawArgs: Json, ip: string | null): Promise<CallResult> {
    const startedAt = Date.now()
    const agent = user.agent
    const audit = (outcome: string, error: string | null = null) =>
      this.deps.audit.record({ tokenId: agent.tokenId, tokenName: agent.name, surface: 'mcp', tool: tool.name, args: rawArgs, outcome, error, ip, startedAt })

    if (!agent.scopes.has(tool.scope)) {
      const text = `forbidden: missing scope ${tool.scope}`
      await audit('denied', text)
      return failed(text)
    }
    const rate = this.deps.buckets.hit(agent, tool.bucket, startedAt)
    if (!rate.allowed) {
      const text = `rate_limited: the ${tool.bucket} bucket of this token allows ${rate.limit} calls a minute; retry in ${rate.retryAfter} s`
      await audit('rate_limited', text)
      return failed(text)
    }

    const { confirm_token: confirmToken, ...args } = rawArgs
    try {
      if (tool.tier2(args)) return await this.tier2(user, tool, args, typeof confirmToken === 'string' ? confirmToken : undefined, audit)
      const result = await this.run(user, tool, args)
      await audit('ok')
      return ok(result)
    } catch (err) {
      const text = this.describe(err, tool)
      await audit(err instanceof AppError && err.code === 'forbidden' ? 'denied' : 'error', text)
      return failed(text)
    }
  }

  private async run(user: AdminUser, tool: Tool, args: Json): Promise<Json> {
    return tool.toOutput(await invoke(tool.verb, adminActor(user), tool.toInput(args) as never))
  }

  /** First call: preview + confirm_token, nothing done. Second call: claim, act once, keep the result. */
  private async tier2(user: AdminUser & { agent: AgentIdentity }, tool: Tool, args: Json, confirmToken: string | undefined,
    audit: (outcome: string, error?: string | null) => Promise<void>): Promise<CallResult> {
    const { confirmations, store } = this.deps
    const tokenId = user.agent.tokenId
    if (confirmToken === undefined) {
      const issued = confirmations.issue(tokenId, tool.name, args)
      const structured = {
        confirmation_required: true,
        tool: tool.name,
        effect: tool.verb.summary,
        preview: await this.preview(user, tool, args),
        confirm_token: issued.token,
        expires_at: iso(issued.expiresAt),
        next: `call ${tool.name} again with the same arguments plus "confirm_token" to act`,
      }
      await audit('confirmation_required')
      return ok(structured)
    }
    const checked = confirmations.check(confirmToken, tokenId, tool.name, args)
    if (!checked.valid) {
      const text = 'invalid: confirm_token does not match this tool and these exact arguments (call without it for a new preview)'
      await audit('denied', text)
      return failed(text)
    }
    const key = Confirmations.keyOf(confirmToken, tokenId)
    const claim = await store.claimConfirmation(key, tokenId, tool.name, Date.now())
    if (!claim.claimed) {
      if (claim.state === 'running' || claim.result === null) {
        const text = 'conflict: this confirmed call is still running; repeat it in a moment for its result'
        await audit('error', text)
        return failed(text)
      }
      await audit('replayed')
      return ok(JSON.parse(claim.result) as Json)
    }
    if (checked.expired) {
      await store.releaseConfirmation(key)
      const text = 'invalid: confirm_token expired (valid 5 minutes); call without it for a new preview'
      await audit('denied', text)
      return failed(text)
    }
    let result: Json
    try {
      // The verb sees a confirmed call: user, permission and token changes by a token need one (requireConfirmed).
      result = await this.run({ ...user, agent: { ...user.agent, confirmed: true } }, tool, args)
    } catch (err) {
      // Nothing was done: the confirmation may be used again once the cause is fixed.
      await store.releaseConfirmation(key)
      throw err
    }
    // A new token's secret is shown once: the kept result (what a repeat replays) never holds it.
    const kept = typeof result.token === 'string' ? { ...result, token: null, token_note: 'shown only in the first answer of this confirmed call' } : result
    await store.finishConfirmation(key, JSON.stringify(kept))
    await audit('ok')
    return ok(result)
  }

  /** The record the call would act on, read with the agent's own rights (null when it may not read it). */
  private async preview(user: AdminUser, tool: Tool, args: Json): Promise<unknown> {
    const spec = tool.preview
    const verb = spec && this.deps.verbs().get(spec.verb)
    if (!spec || !verb) return { arguments: args }
    try {
      return { record: viewOf(verb, await invoke(verb, adminActor(user), spec.input(args) as never)), arguments: args }
    } catch (err) {
      if (err instanceof AppError) return { record: null, note: errorText(err), arguments: args }
      throw err
    }
  }

  private describe(err: unknown, tool: Tool): string {
    if (err instanceof AppError) return errorText(err)
    log.error('agent: tool failed', { tool: tool.name, ...errorFields(err) })
    return 'internal: the call failed unexpectedly (see the server log)'
  }
}
