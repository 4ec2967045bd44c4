import { formatUtc } from "@/lib/format";

/** Expiry choices offered in the key dialogs; "custom" takes a date. */
export const expiryChoices = [
  { value: "never", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
  { value: "custom", label: "On a date…" },
] as const;

export type ExpiryChoice = (typeof expiryChoices)[number]["value"];

/** End of the chosen day in UTC for a date; null for never. */
export function expiryFrom(choice: ExpiryChoice, customDate: string): Date | null {
  if (choice === "never") return null;
  if (choice === "custom") return customDate ? new Date(`${customDate}T23:59:59Z`) : null;
  return new Date(Date.now() + Number(choice) * 86_400_000);
}

export const formatDate = (date: Date | null) => (date ? formatUtc(date, "minute") : "—");
