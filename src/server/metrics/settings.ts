import { group, text, type ValuesOf } from "@/server/config/setting";

export const metricsSettings = group("Metrics", {
  OPTSTUFF_METRICS_TOKEN: text({
    defaultText: "off in production; elsewhere generated into `<data dir>/metrics-token` (0600)",
    doc: "The bearer token of `/api/metrics` (Prometheus), or `off`; never open without one. Required on Vercel (a token, or `off`).",
    secret: true,
  }),
});

export type MetricsValues = ValuesOf<typeof metricsSettings>;
