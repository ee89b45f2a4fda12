// The forward job's one write to a conversion: the warning that its forward was sent with placeholders as
// written (column conversions.forward_warning, shown on the admin API's conversion items). Both engines.
import type { AnyDatabase } from '../db/engine'
import { sql } from '../db/sql'
import { storeDb } from '../db/store-db'

export function forwardWarningWriter(database: AnyDatabase): (conversionId: number, warning: string) => Promise<void> {
  const db = storeDb(database)
  return async (id, warning) => {
    await db.run(sql`UPDATE conversions SET forward_warning = ${warning} WHERE id = ${id}`)
  }
}
