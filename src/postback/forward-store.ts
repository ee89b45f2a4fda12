// The forward job's one write to a conversion: the warning that its forward was sent with placeholders as
// written (column conversions.forward_warning, shown on the admin API's conversion items). Both engines.
import type { AnyDatabase } from '../db/engine'

export function forwardWarningWriter(database: AnyDatabase): (conversionId: number, warning: string) => Promise<void> {
  if (database.engine === 'postgres') {
    const sql = database.sql
    return async (id, warning) => {
      await sql`UPDATE conversions SET forward_warning = ${warning} WHERE id = ${id}`
    }
  }
  const update = database.raw.prepare('UPDATE conversions SET forward_warning = $warning WHERE id = $id')
  return async (id, warning) => {
    update.run({ id, warning })
  }
}
