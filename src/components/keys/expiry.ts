import { expiryChoiceValues, type ExpiryChoice } from "@/lib/schemas/api-key";

const labels: Record<ExpiryChoice, string> = {
  never: "Never",
  "30": "In 30 days",
  "90": "In 90 days",
  "365": "In a year",
  custom: "On a date…",
};

/** Expiry choices offered in the key dialogs; "custom" takes a date. */
export const expiryChoices = expiryChoiceValues.map((value) => ({ value, label: labels[value] }));

export type { ExpiryChoice };

/** End of the chosen day in UTC for a date; null for never. */
export function expiryFrom(choice: ExpiryChoice, customDate: string): Date | null {
  if (choice === "never") return null;
  if (choice === "custom") return customDate ? new Date(`${customDate}T23:59:59Z`) : null;
  return new Date(Date.now() + Number(choice) * 86_400_000);
}

/** How the Edit dialog first shows a key's expiry: as its day (UTC), or never. */
export function initialExpiry(expiresAt: Date | null): { choice: ExpiryChoice; date: string } {
  return expiresAt ? { choice: "custom", date: expiresAt.toISOString().slice(0, 10) } : { choice: "never", date: "" };
}

/**
 * What the Edit dialog sends as the expiry: undefined (leave it) when the user did not change it.
 * Sending the shown day back would make it 23:59:59 of that day, moving the expiry (and stretching a
 * grace period) without anyone asking.
 */
export function editedExpiry(
  expiresAt: Date | null,
  edited: { choice: ExpiryChoice; date: string },
): Date | null | undefined {
  const shown = initialExpiry(expiresAt);
  if (edited.choice === shown.choice && (edited.choice !== "custom" || edited.date === shown.date)) return undefined;
  return expiryFrom(edited.choice, edited.date);
}
