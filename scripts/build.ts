// npm run build → dist/svc: one executable with the migrations embedded (--asset), runnable from any directory.
import { rmSync, mkdirSync } from 'node:fs'

rmSync('dist', { recursive: true, force: true })
mkdirSync('dist')
const args = [
  'build', 'src/index.ts',
  // Worker entry points are bundled only when listed (Bun docs, bundler/executables "Worker").
  'src/tracking/store/checkpoint-worker.ts',
  '--compile',
  '--target', 'bun',
  // Whitespace and syntax only: renamed identifiers break Elysia's generated handlers (STACK.md §3).
  '--minify-whitespace', '--minify-syntax',
  '--asset', './drizzle',
  '--asset', './drizzle-pg',
  '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig',
  '--outfile', 'dist/svc',
]
const proc = Bun.spawnSync([process.execPath, ...args], { stdout: 'inherit', stderr: 'inherit' })
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1)
console.log('built dist/svc')
