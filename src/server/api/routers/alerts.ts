import { alertSettingsSchema } from "@/lib/schemas/alerts";
import { currentAlerts } from "@/server/alerts/current-alerts";
import { alertSettingsOf, saveAlertSettings } from "@/server/alerts/settings";
import { router, teamProcedure } from "../trpc";

export const alertsRouter = router({
  current: teamProcedure("alerts.read").query(({ ctx }) => currentAlerts(ctx.tenancy, ctx.team.id)),

  settings: teamProcedure("alerts.read").query(({ ctx }) => alertSettingsOf(ctx.tenancy.db, ctx.team.id)),

  saveSettings: teamProcedure("alerts.write")
    .input(alertSettingsSchema)
    .mutation(({ ctx, input }) => saveAlertSettings(ctx.tenancy, ctx.team.id, input)),
});
