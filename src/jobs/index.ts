// The jobs feature: the admin view of the durable job queue (the loop itself is ctx.jobs, built with the
// context because producers enqueue inside their own transactions; see loop.ts).
import type { AppContext, Feature } from '../context'
import { jobsRoutes } from './routes'
import { createJobStore } from './store'
import { jobsVerbs } from './verbs'

// What a job handler throws to fail an attempt (the queue's own types are context.ts's: ctx.jobs).
export { JobError } from './types'

export function jobsFeature(ctx: AppContext): Feature {
  const verbs = jobsVerbs({ store: createJobStore(ctx.database), queue: ctx.jobs, maxAttempts: ctx.config.jobs.maxAttempts })
  return { name: 'jobs', routes: jobsRoutes(ctx, verbs), verbs }
}
