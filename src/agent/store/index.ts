import type { AnyDatabase } from '../../db/engine'
import { PgAgentStore } from './pg'
import { SqliteAgentStore } from './sqlite'
import type { AgentStore } from './types'

/** The agent store (tokens, audit, confirmations) of the engine in use. */
export function agentStore(database: AnyDatabase): AgentStore {
  return database.engine === 'postgres' ? new PgAgentStore(database) : new SqliteAgentStore(database)
}
