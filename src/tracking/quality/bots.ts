// Bot user agents: the shipped list (bot-user-agents.txt, embedded in the binary by the text import)
// compiled once into one case-insensitive RegExp of alternatives.
import list from './bot-user-agents.txt' with { type: 'text' }

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

/** Compiles a list in the bot-user-agents.txt format: plain lines are substrings, /…/ lines are RegExp fragments. */
export function compileBotMatcher(text: string): RegExp {
  const parts: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    parts.push(line.length > 2 && line.startsWith('/') && line.endsWith('/') ? `(?:${line.slice(1, -1)})` : escape(line))
  }
  // An empty list must match nothing, not everything.
  return parts.length ? new RegExp(parts.join('|'), 'i') : /(?!)/
}

export const BOT_USER_AGENT = compileBotMatcher(list)

export function isBotUserAgent(ua: string): boolean {
  return BOT_USER_AGENT.test(ua)
}
