import { z } from "zod";

/** What is waiting is counted up to here (shown as "10,000 or more"): a long backlog costs no long count. */
export const WAITING_COUNTED = 10_000;

/** Where the stream's batches go: one of the team's signed JSON webhooks, or the bucket. */
export const AUDIT_STREAM_DESTINATIONS = ["webhook", "bucket"] as const;

export const auditStreamInputSchema = z
  .object({
    destination: z.enum(AUDIT_STREAM_DESTINATIONS, { error: "Choose where the log is sent" }),
    webhookId: z.uuid("Choose one of the team's webhooks").optional(),
    /** Only when the stream is first set up: the entries already written too, or those from now on. */
    startFrom: z.enum(["now", "oldest"], { error: "Choose where the stream starts" }).default("now"),
  })
  .refine((input) => input.destination !== "webhook" || input.webhookId, {
    path: ["webhookId"],
    message: "Choose one of the team's webhooks",
  });
export type AuditStreamInput = z.input<typeof auditStreamInputSchema>;

/** Where the cursor moves: every kept entry, a day (UTC) on, or past everything written so far. */
export const auditStreamResetSchema = z
  .object({
    to: z.enum(["oldest", "day", "now"], { error: "Choose where to send from" }),
    /** Read when `to` is `day` only ("" is the form's empty field). */
    day: z
      .union([
        z.literal(""),
        z.iso.date("Enter a day, such as 2026-01-31").refine((day) => day >= "1970-01-01", "Enter a day from 1970 on"),
      ])
      .optional(),
  })
  .refine((input) => input.to !== "day" || input.day, { path: ["day"], message: "Enter a day, such as 2026-01-31" });
export type AuditStreamReset = z.input<typeof auditStreamResetSchema>;
