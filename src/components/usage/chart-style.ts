/** A chart tooltip on the card's own surface, in both themes (recharts draws it white otherwise). */
export const TOOLTIP_STYLE = {
  background: "var(--color-white)",
  border: "1px solid var(--color-neutral-200)",
  color: "var(--color-neutral-900)",
  fontSize: 12,
} as const;
