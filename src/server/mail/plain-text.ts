/**
 * Text a tenant chose (a team's, a project's, a key's name), placed in a text/plain mail. The mail has
 * no HTML part, so markup in a name is shown, never run; what a name could still do is start lines of
 * its own (a forged paragraph, a fake link to follow) or, in a header, a header of its own. Here it
 * cannot: line breaks, other control characters and the invisible characters that reorder or hide
 * text (bidirectional overrides and isolates, zero-width marks) are written as visible escapes.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** The text on one line of visible characters: `a\r\nb` is shown as the six characters `a\r\nb`. */
export function oneLine(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A name in double quotes, on one line; a quote or backslash in it is escaped, so the name ends where the quotes do. */
export function quoted(text: string): string {
  return `"${oneLine(text.replace(/["\\]/g, "\\$&"))}"`;
}
