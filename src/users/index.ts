// The users feature: admin users and their API. The store is ctx.users (the admin guard and login use it).
import type { AppContext, Feature } from '../context'
import { userRoutes } from './routes'
import { usersVerbs } from './verbs'

export function usersFeature(ctx: AppContext): Feature {
  const verbs = usersVerbs(ctx.users)
  return { name: 'users', routes: userRoutes(ctx, verbs), verbs }
}
