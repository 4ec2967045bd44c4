import { alertSettingsSchema } from "@/lib/schemas/alerts";
import { currentAlerts } from "@/server/alerts/current-alerts";
import { alertSettingsOf, saveAlertSettings } from "@/server/alerts/settings";
import { router, teamProcedure } from "../trpc";

export const alertsRouter = router({
  current: teamProcedure("alerts.read").query(({ ctx }) => currentAlerts(ctx.tenancy, ctx.team.id)),

  /** The team's choices, and whether this instance can mail at all (without SMTP only the banner shows alerts). */
  settings: teamProcedure("alerts.read").query(async ({ ctx }) => ({
    settings: await alertSettingsOf(ctx.tenancy.db, ctx.team.id),
    mailConfigured: ctx.services.mailer !== null,
  })),

  saveSettings: teamProcedure("alerts.write")
    .input(alertSettingsSchema)
    .mutation(({ ctx, input }) => saveAlertSettings(ctx.tenancy, ctx.team.id, input)),
});
