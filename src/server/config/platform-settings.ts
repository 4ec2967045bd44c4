import { choice, group, text, type ValuesOf } from "./setting";

/** What Node, Next and Vercel set; read to tell where the server runs, never set by hand. */
export const platformSettings = group(
  "Set by the platform",
  {
    NODE_ENV: choice(["development", "test", "production"], {
      default: "development",
      doc: "Set by `npm start` and `next build` to `production`; with `DATABASE_URL` it means secrets must be given, never generated.",
    }),
    VERCEL: text({ doc: "Set on Vercel's deployments: the platform's defaults apply (see the Vercel section)." }),
    VERCEL_ENV: text({
      doc: "`production`, `preview` or `development`; `optstuff migrate --vercel-build` migrates production's database, and a preview's only with `OPTSTUFF_MIGRATE_PREVIEWS=on`.",
    }),
    VERCEL_PROJECT_PRODUCTION_URL: text({
      doc: "The production domain: the public base URL when `OPTSTUFF_PUBLIC_BASE_URL` is not set.",
    }),
    VERCEL_URL: text({ doc: "This deployment's host: a preview is signed in to at it." }),
    VERCEL_BRANCH_URL: text({
      doc: "The preview's branch host, stable across its deployments: a preview is signed in to at it.",
    }),
  },
  { platform: true },
);

export type PlatformValues = ValuesOf<typeof platformSettings>;
