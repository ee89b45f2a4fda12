// Where `svc user add` and `svc user passwd` get a password: never only argv, which `ps` shows to every
// user of the machine. Piped stdin is read whole (one trailing newline dropped); a terminal gets a prompt
// without echo, asked twice.

export class PasswordInputError extends Error {}

async function readStdin(): Promise<string> {
  const text = await Bun.stdin.text()
  return text.replace(/\r?\n$/, '')
}

/** One line from the terminal in raw mode (nothing echoed). Ctrl-C aborts, Backspace edits. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin
  // Echo goes off before the question shows: whatever is typed after it is never displayed.
  stdin.setRawMode(true)
  process.stderr.write(question)
  return new Promise((resolve, reject) => {
    let line = ''
    const done = (err: Error | null) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      if (err) reject(err)
      else resolve(line)
    }
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(null)
        if (ch === '\u0003') return done(new PasswordInputError('cancelled'))
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1)
        else if (ch >= ' ') line += ch
      }
    }
    stdin.resume()
    stdin.on('data', onData)
  })
}

/** The new password: from piped stdin, or typed twice at a prompt. */
export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const piped = await readStdin()
    if (piped === '') throw new PasswordInputError('no password on stdin: pipe it in, or run in a terminal to be prompted')
    return piped
  }
  const first = await promptHidden('New password: ')
  const again = await promptHidden('Repeat it: ')
  if (first !== again) throw new PasswordInputError('the two passwords differ; nothing was changed')
  return first
}
