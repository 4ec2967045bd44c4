"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, DangerZone, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { teamSchema } from "@/lib/schemas/team";
import { useSlugFollowsName } from "@/lib/slug-follows-name";
import { useTRPC } from "@/lib/trpc/client";
import { AlertSettingsCard } from "@/components/alerts/alert-settings-card";
import { WebhooksCard } from "@/components/webhooks/webhooks-card";
import { AuditStreamCard } from "@/components/audit-stream/audit-stream-card";
import { InvitationsCard } from "./invitations-card";
import { LeaveTeam, leaveRefusal } from "./leave-team";
import { MembersCard } from "./members-card";
import { SecondFactorPolicyCard } from "./second-factor-policy-card";
import { TeamSlugField } from "./slug-input";

export function TeamSettings({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const me = useQuery(trpc.account.me.queryOptions());
  if (team.isPending) return <Loading />;
  if (team.error) return <ErrorMessage error={team.error} />;
  const { can, role } = team.data;
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Team settings</h1>
      {can["team.update"] ? <GeneralCard teamSlug={teamSlug} name={team.data.team.name} /> : null}
      {can["team.update"] ? (
        <SecondFactorPolicyCard
          teamSlug={teamSlug}
          required={team.data.team.requireSecondFactor}
          byInstance={team.data.secondFactorRequiredByInstance}
        />
      ) : null}
      <MembersCard teamSlug={teamSlug} myRole={role} canManage={can["member.changeRole"]} myUserId={me.data?.user.id} />
      {can["invitation.create"] ? <InvitationsCard teamSlug={teamSlug} canInviteOwners={role === "owner"} /> : null}
      {can["alerts.write"] ? <AlertSettingsCard teamSlug={teamSlug} /> : null}
      {can["webhooks.write"] ? <WebhooksCard teamSlug={teamSlug} /> : null}
      {can["auditStream.write"] ? <AuditStreamCard teamSlug={teamSlug} /> : null}
      <TeamDangerZone teamSlug={teamSlug} myRole={role} canDelete={can["team.delete"]} />
    </div>
  );
}

function GeneralCard({ teamSlug, name: initialName }: { teamSlug: string; name: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const form = useZodForm(teamSchema, { name: initialName, slug: teamSlug });
  const update = useMutation(
    trpc.team.update.mutationOptions({
      meta: { done: "Team settings saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async (team) => {
        form.reset({ name: team.name, slug: team.slug });
        await queryClient.invalidateQueries();
        if (team.slug !== teamSlug) router.replace(`/t/${team.slug}/settings`);
      },
    }),
  );
  const { name, slug } = useSlugFollowsName(form, { follow: false });
  return (
    <Card title="General">
      <form
        onSubmit={form.handleSubmit((values) => update.mutate({ teamSlug, ...values }))}
        className="space-y-4"
        noValidate
      >
        <Field label="Team name" required maxLength={80} {...name} />
        <TeamSlugField field={slug} value={form.watch("slug")} current={teamSlug} />
        <ErrorMessage error={formLevelError(form)} />
        {update.isSuccess ? (
          <p role="status" className="text-sm text-ok">
            Saved.
          </p>
        ) : null}
        <Button type="submit" pending={update.isPending} pendingLabel="Saving…">
          Save
        </Button>
      </form>
    </Card>
  );
}

function TeamDangerZone({
  teamSlug,
  myRole,
  canDelete,
}: {
  teamSlug: string;
  myRole: "owner" | "admin" | "member";
  canDelete: boolean;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  // The members card's query (prefetched with the page): the last owner is told why before trying.
  const members = useQuery(trpc.team.members.queryOptions({ teamSlug }));
  const leave = useMutation(trpc.team.leave.mutationOptions({ meta: { done: "You left the team" } }));
  const remove = useMutation(trpc.team.delete.mutationOptions({ meta: { done: "Team deleted" } }));
  const gone = () => {
    router.push("/");
    router.refresh();
  };
  return (
    <DangerZone>
      <LeaveTeam
        refusal={leaveRefusal(myRole, members.data ?? [])}
        onLeave={async () => {
          await leave.mutateAsync({ teamSlug });
          gone();
        }}
      />
      {canDelete ? (
        <ConfirmDialog
          trigger={
            <Button variant="danger" icon={Trash2}>
              Delete team
            </Button>
          }
          title="Delete this team?"
          description="Every project and API key of the team is deleted and its image URLs stop working at once. This cannot be undone."
          confirmLabel="Delete team"
          typeToConfirm={teamSlug}
          onConfirm={async (typed) => {
            await remove.mutateAsync({ teamSlug, confirmSlug: typed });
            gone();
          }}
        />
      ) : null}
    </DangerZone>
  );
}
