import { textToken } from "@optstuff/client";

/** The operations segment's tokens; `_` and an empty field hold none. */
const tokensOf = (segment: string) =>
  segment.trim() === "_"
    ? []
    : segment
        .split(",")
        .map((token) => token.trim())
        .filter(Boolean);

const isCaption = (token: string) => token.startsWith("txt_");

/**
 * The caption the operations draw (their last txt_, as the server reads them), decoded; null when
 * they draw none or its value is not UTF-8 base64url (the server names that token in its 400).
 */
export function captionOf(segment: string): string | null {
  const token = tokensOf(segment).findLast(isCaption);
  if (token === undefined) return null;
  const value = token.slice("txt_".length);
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return null;
  try {
    const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/**
 * The operations with their caption replaced by this text (written as the kit writes it), or removed
 * with null; the other tokens keep their order. Throws the kit's RangeError for a text it refuses.
 */
export function withCaption(segment: string, text: string | null): string {
  const others = tokensOf(segment).filter((token) => !isCaption(token));
  const tokens = text === null ? others : [...others, textToken(text)];
  return tokens.length === 0 ? "_" : tokens.join(",");
}
