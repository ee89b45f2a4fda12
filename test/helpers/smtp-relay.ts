// A real SMTP relay for tests (the smtp-server package) on a random local port: it keeps what it accepts,
// can refuse a recipient with the code the test chooses, and can require a login.
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'

export interface Received { from: string; to: string[]; raw: string }

/**
 * A relay on a random port: it stores what it accepts; `rcpt` decides per recipient (throw = refuse).
 * With `auth`, it requires those credentials (AUTH PLAIN/LOGIN over the plain connection of the test).
 */
export function startRelay(rcpt: (address: string) => void = () => {}, auth?: { user: string; pass: string }) {
  const received: Received[] = []
  const server = new SMTPServer({
    authOptional: !auth,
    allowInsecureAuth: true,
    onAuth(a, _session, cb) {
      if (auth && a.username === auth.user && a.password === auth.pass) cb(null, { user: a.username })
      else cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }))
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, cb) {
      try {
        rcpt(address.address)
        cb()
      } catch (err) {
        cb(err as Error)
      }
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          from: (session.envelope.mailFrom as SMTPServerAddress).address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        cb()
      })
    },
  })
  return new Promise<{ url: string; received: Received[]; close: () => void }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.server.address() as { port: number }).port
      resolve({ url: `smtp://127.0.0.1:${port}`, received, close: () => server.close() })
    })
  })
}

/** A refusal for `rcpt`: the relay answers with this code and text. */
export const refuse = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code })

/** A header of a raw message (first occurrence), unfolded. */
export const header = (raw: string, name: string) => {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ')
  return new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1]
}

/** A raw message with quoted-printable soft breaks and escapes undone (long lines are wrapped on the wire). */
export const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
