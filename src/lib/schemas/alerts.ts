import { z } from "zod";

const percent = (what: string) =>
  z
    .number({ error: `Give ${what} as a whole percentage` })
    .int(`Give ${what} as a whole percentage`)
    .min(1, `${what} is at least 1 %`)
    .max(100, `${what} is at most 100 %`)
    .nullable();

/** A team's alerts as its admins set them; a null share turns its alert off. */
export const alertSettingsSchema = z.object({
  keyDayLimitPercent: percent("The share of a key's day limit"),
  errorRatePercent: percent("The error rate"),
  keyExpiry: z.boolean(),
  bucketCredentials: z.boolean(),
  mailAdmins: z.boolean(),
});
export type AlertSettings = z.infer<typeof alertSettingsSchema>;

/** What a team that never chose gets: every alert on, mailed. */
export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  keyDayLimitPercent: 80,
  errorRatePercent: 10,
  keyExpiry: true,
  bucketCredentials: true,
  mailAdmins: true,
};

const optionalPercent = (what: string) =>
  z
    .string()
    .trim()
    .transform((text) => (text === "" ? null : Number(text)))
    .pipe(percent(what));

/** The settings card's fields: the shares as typed, empty for off. */
export const alertSettingsFormSchema = alertSettingsSchema.extend({
  keyDayLimitPercent: optionalPercent("The share of a key's day limit"),
  errorRatePercent: optionalPercent("The error rate"),
});

/** The card's starting values from what is saved. */
export const alertSettingsForm = (settings: AlertSettings): z.input<typeof alertSettingsFormSchema> => ({
  ...settings,
  keyDayLimitPercent: settings.keyDayLimitPercent === null ? "" : String(settings.keyDayLimitPercent),
  errorRatePercent: settings.errorRatePercent === null ? "" : String(settings.errorRatePercent),
});
