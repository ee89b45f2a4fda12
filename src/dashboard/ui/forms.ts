// Submitting a form to the API: the API's validation message goes beside the field it names.
import { ApiError } from './api'

export function showErrors(form: HTMLElement, err: unknown): void {
  clearErrors(form)
  const message = err instanceof ApiError ? err.message : 'The server could not be reached.'
  const field = err instanceof ApiError ? err.field : null
  const slot = field ? form.querySelector<HTMLElement>(`[data-error-for="${field}"]`) : null
  if (slot) {
    slot.textContent = message
    form.querySelector<HTMLElement>(`[name="${field}"]`)?.setAttribute('aria-invalid', 'true')
  } else {
    const general = form.querySelector<HTMLElement>('.form-error')
    if (general) general.textContent = message
  }
}

export function clearErrors(form: HTMLElement): void {
  for (const el of form.querySelectorAll<HTMLElement>('.field-error, .form-error')) el.textContent = ''
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid')
}

/** Copies text to the clipboard, saying so on the button (nothing is carried by colour alone). */
export async function copy(button: HTMLButtonElement, text: string): Promise<void> {
  const label = button.textContent
  try {
    await navigator.clipboard.writeText(text)
    button.textContent = 'Copied'
  } catch {
    button.textContent = 'Copy failed: select the text'
  }
  setTimeout(() => { button.textContent = label }, 1500)
}

/** A saved record into the screen's list: in place of the one edited, or at the end when new. */
export function upsert<T>(list: T[], existing: T | null, saved: T): void {
  if (existing) list[list.indexOf(existing)] = saved
  else list.push(saved)
}
