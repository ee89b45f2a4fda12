// bun test preload (bunfig.toml): under `npm run test:pg` the throwaway cluster starts here, once, before
// any test file. Started from a test's beforeAll instead, initdb on a loaded machine outlasted the hook's
// timeout and bun killed pg_ctl half-way.
import { onPostgres, pgAvailable, pgCluster } from './pg'

if (onPostgres) {
  const pg = pgAvailable()
  if (!pg.ok) throw new Error(`npm run test:pg: ${pg.why}`)
  await pgCluster()
}
