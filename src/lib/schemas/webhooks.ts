import { z } from "zod";
import { WEBHOOK_FORMATS, webhookEventNames, type WebhookFormat } from "@/lib/webhook-events";

/** A receiver's address: http(s), no user name or password in it (they would be sent to every hop). */
export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1, "Enter the receiver's URL")
  .max(2000, "A URL has at most 2,000 characters")
  .refine((text) => URL.canParse(text), "Enter a full URL, such as https://example.com/hooks/optstuff")
  .refine(
    (text) => ["http:", "https:"].includes(URL.canParse(text) ? new URL(text).protocol : ""),
    "The URL must start with https:// or http://",
  )
  .refine((text) => {
    const url = URL.canParse(text) ? new URL(text) : null;
    return !url || (url.username === "" && url.password === "");
  }, "Leave the user name and password out of the URL");

const formatSchema = z.enum(Object.keys(WEBHOOK_FORMATS) as [WebhookFormat, ...WebhookFormat[]], {
  error: "Choose a format",
});

const eventsSchema = z
  .array(z.string().refine((name) => webhookEventNames.includes(name), "Unknown event"))
  .min(1, "Choose at least one alert or action")
  .max(webhookEventNames.length)
  .transform((names) => [...new Set(names)].sort());

export const webhookInputSchema = z.object({ url: webhookUrlSchema, format: formatSchema, events: eventsSchema });
export type WebhookInput = z.input<typeof webhookInputSchema>;

/** An edit: the address stays unless a new one is given (the console never shows the whole old one). */
export const webhookEditSchema = z.object({
  url: webhookUrlSchema.optional(),
  format: formatSchema,
  events: eventsSchema,
});
