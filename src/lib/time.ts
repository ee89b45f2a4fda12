/** Epoch milliseconds as the API shows times: ISO 8601 in UTC. */
export const iso = (ms: number) => new Date(ms).toISOString()
