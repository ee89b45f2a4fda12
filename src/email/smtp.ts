// Delivery through the operator's SMTP relay (SVC_SMTP_URL), with nodemailer: smtp:// (STARTTLS when the
// server offers it) or smtps:// (TLS from the first byte), user and password in the URL. What the relay
// answers decides what happens next: 2xx sent; 4xx or no answer (network, timeout) retried by the job
// loop; 5xx failed for good, with the relay's reply kept as the job's last_error.
import type { Transporter } from 'nodemailer'
import { JobError } from '../jobs'

export interface OutgoingMail {
  from: string
  to: string
  subject: string
  text: string
  html: string | null
  /** Without angle brackets: `<id>@<domain>` is written as `<…>`. */
  messageId: string
  headers?: Record<string, string>
}

export interface MailTransport {
  /** Resolves with the relay's reply ("250 2.0.0 OK …"); rejects with a JobError saying whether to retry. */
  send(mail: OutgoingMail): Promise<string>
  close(): void
}

/** Timeouts well under the job loop's attempt timeout, so a stuck relay fails the attempt with its own words. */
const CONNECT_MS = 10_000
const SOCKET_MS = 20_000

/** The relay of `url`, or an Error naming what is wrong with the URL (never echoing the password). */
export function smtpTransport(url: string): MailTransport {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error('SVC_SMTP_URL is not a URL (expected smtp://user:password@host:587 or smtps://…:465)')
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new Error(`SVC_SMTP_URL must start with smtp:// or smtps:// (got ${parsed.protocol}//)`)
  }
  const options = {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : parsed.protocol === 'smtps:' ? 465 : 587,
    secure: parsed.protocol === 'smtps:',
    auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
    connectionTimeout: CONNECT_MS,
    greetingTimeout: CONNECT_MS,
    socketTimeout: SOCKET_MS,
  }
  // nodemailer loads with the first message, not at start: ~1 MB of heap for the life of the process.
  let transporter: Promise<Transporter> | null = null
  const relay = () =>
    (transporter ??= import('nodemailer').then(
      (m) => m.default.createTransport(options),
      (err) => {
        transporter = null
        throw err
      },
    ))
  return {
    async send(mail) {
      try {
        const info = await (await relay()).sendMail({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html ?? undefined,
          messageId: `<${mail.messageId}>`,
          headers: mail.headers,
        })
        return String(info.response ?? 'sent').slice(0, 500)
      } catch (err) {
        throw classify(err)
      }
    },
    close() {
      void transporter?.then((t) => t.close(), () => {})
    },
  }
}

/** A 5xx reply is final (the relay refused the message or the account); anything else may pass later. */
export function classify(err: unknown): JobError {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string }
  const reply = (e.response ?? e.message ?? String(err)).replace(/\s+/g, ' ').trim().slice(0, 500)
  if (typeof e.responseCode === 'number') return new JobError(`SMTP ${e.responseCode}: ${reply}`, e.responseCode < 500)
  return new JobError(`SMTP ${e.code ?? 'error'}: ${reply}`, true)
}
