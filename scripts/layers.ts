// The layering rules of src/ (docs/architecture.md, "Layers"), checked by test/core/layers.test.ts and
// printed by `bun scripts/layers.ts`:
//   lib/        knows no feature: imports only lib/ (and the types of events.ts and db/engine.ts)
//   db/         the engines: imports only db/, lib/, events.ts and config.ts
//   events.ts   owns the event payload types: imports only lib/ and db/ (types)
//   a feature   imports another feature only through that feature's index.ts (or the interfaces context.ts
//               re-exports: the types of what AppContext hands it, such as SettingsStore and JobQueue)
// What several features share and no feature owns is a generic helper in lib/ (or db/ for the engines).
// Core modules (context.ts, server.ts, config.ts, index.ts, cli*.ts, version.ts) and http/ are the composition
// and transport layers: they may import features' index.ts.
// No exceptions: every import that breaks a rule fails the test.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

const SRC = join(import.meta.dir, '..', 'src')
const CORE_DIRS = new Set(['lib', 'db', 'http', 'dashboard'])

export interface Import {
  from: string
  to: string
}

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (/\.ts$/.test(name) && !name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

/** Every relative import (static, dynamic and `export … from`) between files of src/, as paths under src/. */
export function imports(): Import[] {
  const out: Import[] = []
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8')
    const from = relative(SRC, file)
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
      let to = normalize(join(dirname(from), m[1]!))
      if (to.startsWith('..')) continue
      if (!to.endsWith('.ts') && !/\.(html|css|json|txt)$/.test(to)) {
        try {
          to = statSync(join(SRC, to)).isDirectory() ? `${to}/index.ts` : `${to}.ts`
        } catch {
          to = `${to}.ts`
        }
      }
      out.push({ from, to })
    }
  }
  return out
}

const top = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : path)
const isFeature = (dir: string, path: string) => path.includes('/') && !CORE_DIRS.has(dir)

/** The imports that break a rule, each with the rule's name. */
export function violations(all: Import[] = imports()): Array<Import & { rule: string }> {
  const out: Array<Import & { rule: string }> = []
  for (const i of all) {
    const a = top(i.from)
    const b = top(i.to)
    if (a === 'lib' && b !== 'lib' && i.to !== 'events.ts' && i.to !== 'db/engine.ts') out.push({ ...i, rule: 'lib imports only lib' })
    else if (a === 'db' && b !== 'db' && b !== 'lib' && i.to !== 'events.ts' && i.to !== 'config.ts') out.push({ ...i, rule: 'db imports only db and lib' })
    else if (i.from === 'events.ts' && b !== 'lib' && b !== 'db') out.push({ ...i, rule: 'events.ts imports only lib and db' })
    else if (isFeature(a, i.from) && isFeature(b, i.to) && a !== b && i.to !== `${b}/index.ts`) {
      out.push({ ...i, rule: 'a feature imports another only through its index.ts' })
    }
  }
  return out
}

if (import.meta.main) {
  const v = violations()
  const byRule = new Map<string, number>()
  for (const x of v) byRule.set(x.rule, (byRule.get(x.rule) ?? 0) + 1)
  for (const x of v) console.log(`${x.rule}: ${x.from} → ${x.to}`)
  console.log(v.length === 0 ? 'no import breaks a rule' : [...byRule].map(([r, n]) => `${n} × ${r}`).join('\n'))
  if (v.length > 0) process.exitCode = 1
}
