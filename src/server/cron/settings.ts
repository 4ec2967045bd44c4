import { choice, group } from "@/server/config/setting";

export const schedulerSettings = group("Scheduled jobs", {
  OPTSTUFF_SCHEDULER: choice(["auto", "on", "off"], {
    default: "auto",
    doc: "Run the usage flush every minute and the daily maintenance in this process (`auto`: except on Vercel, where Vercel Cron calls the routes); safe on several instances, a lock elects one.",
  }),
});
