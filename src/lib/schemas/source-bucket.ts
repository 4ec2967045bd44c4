import { z } from "zod";

export const bucketAliasSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, {
    error: "Use 1–32 lower-case letters, digits and dashes, starting with a letter or digit",
  });

/** S3's rules for a bucket name, loosened to what R2, GCS and MinIO also accept. */
export const bucketSchema = z.object({
  alias: bucketAliasSchema,
  endpoint: z.string().trim().min(1, { error: "Enter the endpoint URL" }).max(300),
  region: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{1,64}$/, { error: "A region such as us-east-1, or auto for R2" }),
  bucket: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/, { error: "3–63 lower-case letters, digits, dots and dashes" }),
  prefix: z
    .string()
    .max(256, { error: "At most 256 characters" })
    .regex(/^(?!\/)\P{Cc}*$/u, { error: "No leading / and no control characters" })
    .default(""),
  forcePathStyle: z.boolean(),
  accessKeyId: z.string().trim().min(1, { error: "Enter the access key id" }).max(128),
  /** Empty or absent keeps the secret of the alias being replaced. */
  secretAccessKey: z.string().max(256).optional(),
});
