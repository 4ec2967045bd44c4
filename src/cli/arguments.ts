import { InvalidArgumentError } from "@commander-js/extra-typings";
import { z } from "zod";
import { MAX_KEY_PER_DAY, MAX_KEY_PER_MINUTE, MAX_ROTATION_GRACE_SECONDS } from "@/lib/schemas/api-key";
import { boundedCount, nameSchema, slugSchema } from "@/lib/schemas/names";
import { MAX_CAP_BYTES, MAX_CAP_TRANSFORMS, MEGABYTE } from "@/lib/schemas/spend-cap";
import { parseHostList } from "@/lib/schemas/project";
import { emailSchema } from "@/lib/schemas/team";
import { isAppError } from "@/server/errors";
import { parseOperations } from "@/server/image";
import { isPublicKeyShape } from "@/server/signing";
import { parseSource } from "@/server/source";

/**
 * Option values are checked as the dashboard's forms check them (the same zod schemas) and operations
 * as the image route parses them, before anything is opened: a value commander reports as
 * "option '--per-minute <n>' argument 'soon' is invalid. Enter a whole number from 1 to 100,000".
 */
function fromSchema<T>(schema: z.ZodType<T>): (value: string) => T {
  return (value) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? "Invalid value");
  };
}

/** A whole number typed as text ("12", not "12.5", "1e3", "soon" or ""), then held to `schema`. */
const wholeNumber = (schema: z.ZodNumber, message: string) =>
  fromSchema(z.string().trim().regex(/^\d+$/, message).transform(Number).pipe(schema));

const count = (max: number) =>
  wholeNumber(boundedCount(max), `Enter a whole number from 1 to ${max.toLocaleString("en")}`);

export const slug = fromSchema(slugSchema);
export const email = fromSchema(emailSchema);
export const name = fromSchema(nameSchema);
export const perMinute = count(MAX_KEY_PER_MINUTE);
export const perDay = count(MAX_KEY_PER_DAY);

/**
 * A spend cap: a whole number in bounds, or `none` to have no cap of that kind (kept as the word:
 * commander reads an option whose parser answers null as given without a value).
 */
const capOrNone =
  (parse: (value: string) => number) =>
  (value: string): number | "none" =>
    value.trim().toLowerCase() === "none" ? "none" : parse(value);
export const capTransforms = capOrNone(count(MAX_CAP_TRANSFORMS));
/** Megabytes (10^6 bytes) on the command line, bytes in the cap. */
export const capMegabytes = capOrNone((value) => count(MAX_CAP_BYTES / MEGABYTE)(value) * MEGABYTE);

/** A key's lifetime in days: at most 100 years. */
export const days = wholeNumber(
  z.number().int().min(1, "At least 1 day").max(36_500, "At most 36,500 days (100 years)"),
  "Enter a whole number of days",
);

const MAX_GRACE_HOURS = MAX_ROTATION_GRACE_SECONDS / 3600;
export const graceHours = wholeNumber(
  z.number().int().max(MAX_GRACE_HOURS, `A grace period is at most ${MAX_GRACE_HOURS} hours (30 days)`),
  `Enter a whole number of hours from 0 to ${MAX_GRACE_HOURS}`,
);

export const seconds = wholeNumber(z.number().int().min(1, "At least 1 second"), "Enter a whole number of seconds");

/** `--reset-to`: `oldest`, `now`, or a UTC day the stream sends again from. */
export const streamReset = fromSchema(
  z.union(
    [
      z.enum(["oldest", "now"]).transform((to) => ({ to })),
      z.iso
        .date()
        .refine((day) => day >= "1970-01-01")
        .transform((day) => ({ to: "day" as const, day })),
    ],
    { error: "Enter oldest, now or a day such as 2026-01-31" },
  ),
);

export const publicKey = (value: string): string => {
  if (!isPublicKeyShape(value)) throw new InvalidArgumentError("Not a public key (pk_ followed by 22 characters)");
  return value;
};

/** Where the image API answers: http(s), no query or fragment. */
export const baseUrl = fromSchema(
  z
    .url({ protocol: /^https?$/, error: "Enter the address the image API answers at, e.g. https://img.example.com" })
    .refine((url) => !/[?#]/.test(url), "Without a query or fragment")
    .transform((url) => url.replace(/\/+$/, "")),
);

/** Comma- or newline-separated, as the dashboard's host list fields take them. */
export const hostList = (value: string): string[] => parseHostList(value);

/** The image route's own parser: what it would refuse is refused here, in its words. */
export const operations = (value: string): string => {
  refuseLike(() => parseOperations(value.trim() || "_"));
  return value.trim() || "_";
};

export const source = (value: string): string => {
  const trimmed = value.trim().replace(/^\/+/, "");
  refuseLike(() => parseSource(trimmed));
  return trimmed;
};

function refuseLike(check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (isAppError(error) && error.status < 500) throw new InvalidArgumentError(error.publicMessage);
    throw error;
  }
}
