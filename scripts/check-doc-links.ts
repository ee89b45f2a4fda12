// Checks every relative link in README.md and docs/*.md: the file (or directory) it names exists, and a
// `#anchor` names a heading of that file by GitHub's slug rules (lower case, punctuation dropped, spaces to
// hyphens, `-1`, `-2`… for repeated headings) or an explicit `<a id>`/`<a name>`. Links inside fenced code
// blocks and code spans are not links. External links (http:, https:, mailto:…) are not fetched.
// `bun scripts/check-doc-links.ts [root]` prints one line per broken link and exits 1 when there is one;
// test/core/doc-links.test.ts runs it, so a broken link fails CI.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

export interface BrokenLink {
  file: string
  line: number
  target: string
  problem: string
}

/** GitHub's heading slug: markup and punctuation dropped, letters, digits, `-` and `_` kept, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image in a heading keeps its text
    .replace(/<[^>]+>/g, '') // inline HTML tags
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Lines outside fenced code blocks, with code spans blanked out (their text is never a link). */
function proseLines(markdown: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = []
  let fence: string | null = null
  markdown.split('\n').forEach((raw, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(raw)
    if (m) {
      const mark = m[1]!
      if (fence === null) fence = mark[0]!.repeat(mark.length)
      else if (mark[0] === fence[0] && mark.length >= fence.length) fence = null
      return
    }
    if (fence !== null) return
    out.push({ text: raw.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (s) => ' '.repeat(s.length)), line: i + 1 })
  })
  return out
}

/** Every anchor a markdown file offers: its headings' slugs (numbered when repeated) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence: string | null = null
  for (const raw of markdown.split('\n')) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(raw)
    if (m) {
      const mark = m[1]!
      if (fence === null) fence = mark[0]!.repeat(mark.length)
      else if (mark[0] === fence[0] && mark.length >= fence.length) fence = null
      continue
    }
    if (fence !== null) continue
    const h = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(raw)
    if (h) {
      const base = githubSlug(h[1]!)
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      anchors.add(n === 0 ? base : `${base}-${n}`)
    }
    for (const a of raw.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(a[1]!)
  }
  return anchors
}

/** The link targets of one markdown text: inline links and images, and reference definitions. */
export function linksOf(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = []
  for (const { text, line } of proseLines(markdown)) {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1]!, line })
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$/.exec(text)
    if (def) out.push({ target: def[1]!, line })
  }
  return out
}

/** The markdown files checked under root: README.md and docs/*.md (docs/ sub-folders hold no markdown). */
export function docFiles(root: string): string[] {
  const files = ['README.md']
  const docs = join(root, 'docs')
  if (existsSync(docs)) {
    for (const name of readdirSync(docs).sort()) if (name.endsWith('.md')) files.push(join('docs', name))
  }
  return files.filter((f) => existsSync(join(root, f)))
}

export function checkDocLinks(root: string): BrokenLink[] {
  const broken: BrokenLink[] = []
  const anchorCache = new Map<string, Set<string>>()
  const anchorsFor = (abs: string) => {
    let a = anchorCache.get(abs)
    if (!a) anchorCache.set(abs, (a = anchorsOf(readFileSync(abs, 'utf8'))))
    return a
  }
  for (const file of docFiles(root)) {
    const abs = join(root, file)
    for (const { target, line } of linksOf(readFileSync(abs, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue // external
      const hash = target.indexOf('#')
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1))
      const dest = pathPart === '' ? abs : resolve(dirname(abs), pathPart)
      const report = (problem: string) => broken.push({ file, line, target, problem })
      if (!existsSync(dest)) {
        report(`no such file: ${relative(root, dest)}`)
        continue
      }
      if (anchor === null) continue
      if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
        report(`an anchor into ${relative(root, dest)}, which is not a markdown file`)
        continue
      }
      if (!anchorsFor(dest).has(anchor)) report(`no heading #${anchor} in ${relative(root, dest)}`)
    }
  }
  return broken
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, '..'))
  const broken = checkDocLinks(root)
  for (const b of broken) console.error(`${b.file}:${b.line}: ${b.target}: ${b.problem}`)
  const files = docFiles(root)
  if (broken.length > 0) {
    console.error(`${broken.length} broken link(s) in ${files.length} files`)
    process.exit(1)
  }
  console.log(`doc links: ${files.length} files, every link resolves`)
}
