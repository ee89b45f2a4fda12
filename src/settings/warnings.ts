// Settings that leave the instance open in a way the operator should hear about: said at every start (a
// log line) and in the read-only "warnings" key of GET /admin/api/settings, for as long as it holds.
import type { SettingsStore } from './store'

/** The read-only key of the settings answer that lists the warnings (ignored when written back). */
export const WARNINGS_KEY = 'warnings'

export function settingsWarnings(settings: SettingsStore): string[] {
  const out: string[] = []
  if (!settings.get('postback_secret')) {
    const guard = settings.get('postback_ip_allowlist').length > 0
      ? 'postback_ip_allowlist limits where they may come from'
      : 'anyone who opens a tracking link can post back their own click with any payout'
    out.push(
      `postback_secret is not set: postbacks are unsigned and ${guard}. ` +
        'Set postback_secret (16 characters or more) and sign postbacks, and/or set postback_ip_allowlist to your advertisers\' servers.',
    )
  }
  return out
}
