import { group, text, type ValuesOf } from "./setting";

/** Required in production; generated into `OPTSTUFF_DATA_DIR/secrets.json` on the embedded default (secrets.ts). */
export const secretSettings = group("Secrets", {
  OPTSTUFF_KEY_ENCRYPTION_SECRET: text({
    defaultText: "generated outside production",
    doc: "The master secret sealing API-key secrets (AES-256-GCM through HKDF); see rotating the master secret.",
    secret: true,
  }),
  OPTSTUFF_KEY_ENCRYPTION_SECRET_PREVIOUS: text({
    doc: "The previous master, still accepted for opening secrets while rows are re-sealed after a rotation.",
    secret: true,
  }),
  BETTER_AUTH_SECRET: text({
    defaultText: "generated outside production",
    doc: "Signs the dashboard's sessions.",
    secret: true,
  }),
  CRON_SECRET: text({
    defaultText: "generated outside production",
    doc: "`Authorization: Bearer` of `/api/cron/flush-usage-buffer`, `/api/cron/daily-maintenance` and `/api/cron/check-alerts` (Vercel Cron sends it).",
    secret: true,
  }),
});

export type SecretValues = ValuesOf<typeof secretSettings>;
