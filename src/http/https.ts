import type { Config } from '../config'

/**
 * Whether the visitor reached us over HTTPS: directly, through a trusted proxy (X-Forwarded-Proto), or
 * because the configured public address is https. Decides the `Secure` attribute of every cookie we set.
 */
export function isHttpsRequest(config: Pick<Config, 'publicUrl' | 'trustProxy'>, request: Request): boolean {
  if (request.url.startsWith('https:') || config.publicUrl?.toLowerCase().startsWith('https:') === true) return true
  if (!config.trustProxy) return false
  const proto = request.headers.get('x-forwarded-proto')
  return !!proto && proto.split(',')[0]!.trim().toLowerCase() === 'https'
}
