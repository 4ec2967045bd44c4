import { group, text } from "@/server/config/setting";

export const metricsSettings = group("Metrics", {
  OPTSTUFF_METRICS_TOKEN: text({
    defaultText: "off in production, open on the embedded default",
    doc: "The bearer token of `/api/metrics` (Prometheus), or `off`; required on Vercel (a token, or `off`).",
    secret: true,
  }),
});
