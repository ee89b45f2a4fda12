/** Text as HTML: the five characters that could open markup or leave an attribute, as numeric entities. */
export const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
