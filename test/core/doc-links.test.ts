import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkDocLinks, githubSlug } from '../../scripts/check-doc-links'

// README.md and docs/*.md link into each other (the endpoint reference lives in docs/, one page per
// family): a renamed heading or a moved section must fail here, not on GitHub.
const root = join(import.meta.dir, '..', '..')

describe('documentation links', () => {
  test('every link in README.md and docs/*.md resolves (scripts/check-doc-links.ts exits 0)', () => {
    const r = Bun.spawnSync([process.execPath, join(root, 'scripts', 'check-doc-links.ts'), root], { stdout: 'pipe', stderr: 'pipe' })
    expect(r.stderr.toString()).toBe('')
    expect(r.stdout.toString()).toMatch(/^doc links: \d+ files, every link resolves\n$/)
    expect(r.exitCode).toBe(0)
  })

  test('README stays under 800 lines and links each reference page of docs/', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(readme.split('\n').length).toBeLessThan(800)
    for (const page of ['tracking', 'landings', 'postback', 'admin-api', 'email', 'commerce', 'agent-api', 'reports', 'dashboard', 'security', 'decisions', 'performance']) {
      expect(readme).toContain(`(docs/${page}.md)`)
    }
  })

  test("GitHub's slug rules", () => {
    expect(githubSlug('Tracking links: `GET /c/:slug`, `GET /r/:slug`')).toBe('tracking-links-get-cslug-get-rslug')
    expect(githubSlug('Admin API: `/admin/api/*`')).toBe('admin-api-adminapi')
    expect(githubSlug("The README's table until issue 26")).toBe('the-readmes-table-until-issue-26')
    expect(githubSlug('Session 7: RSS under 150 MB in the soak')).toBe('session-7-rss-under-150-mb-in-the-soak')
    expect(githubSlug('snake_case and [a link](x.md)')).toBe('snake_case-and-a-link')
  })

  describe('a broken tree is reported', () => {
    let dir: string
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'svc-doclinks-'))
      mkdirSync(join(dir, 'docs'))
      writeFileSync(join(dir, 'README.md'), [
        '# svc', '', '## Quick start', '', '## Quick start', '',
        'Good: [a](#quick-start), [b](#quick-start-1), [c](docs/a.md#a-page), [d](docs/), [e](https://example.com/#x).',
        'Bad: [f](#nowhere), [g](docs/missing.md), [h](docs/a.md#nope), [i](#quick-start-2).',
        '', '```', '[not a link](#inside-a-code-block)', '```', 'Nor `[this](#code-span)`.',
      ].join('\n'))
      writeFileSync(join(dir, 'docs', 'a.md'), ['# A page', '', 'Back: [r](../README.md#svc), [s](../README.md#gone), [t](a.md#a-page).'].join('\n'))
    })
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    test('each missing file and heading, with its file and line; code is not checked', () => {
      expect(checkDocLinks(dir)).toEqual([
        { file: 'README.md', line: 8, target: '#nowhere', problem: 'no heading #nowhere in README.md' },
        { file: 'README.md', line: 8, target: 'docs/missing.md', problem: 'no such file: docs/missing.md' },
        { file: 'README.md', line: 8, target: 'docs/a.md#nope', problem: 'no heading #nope in docs/a.md' },
        { file: 'README.md', line: 8, target: '#quick-start-2', problem: 'no heading #quick-start-2 in README.md' },
        { file: 'docs/a.md', line: 3, target: '../README.md#gone', problem: 'no heading #gone in README.md' },
      ])
    })

    test('the script exits 1 and names each broken link', () => {
      const r = Bun.spawnSync([process.execPath, join(root, 'scripts', 'check-doc-links.ts'), dir], { stdout: 'pipe', stderr: 'pipe' })
      expect(r.exitCode).toBe(1)
      expect(r.stderr.toString()).toBe([
        'README.md:8: #nowhere: no heading #nowhere in README.md',
        'README.md:8: docs/missing.md: no such file: docs/missing.md',
        'README.md:8: docs/a.md#nope: no heading #nope in docs/a.md',
        'README.md:8: #quick-start-2: no heading #quick-start-2 in README.md',
        'docs/a.md:3: ../README.md#gone: no heading #gone in README.md',
        '5 broken link(s) in 2 files',
        '',
      ].join('\n'))
    })
  })
})
