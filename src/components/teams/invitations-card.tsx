"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Ban, Send } from "lucide-react";
import { Button } from "@/components/ui/button";
import { When } from "@/components/ui/when";
import { CopyField } from "@/components/ui/copy-field";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { invitationSchema } from "@/lib/schemas/team";
import { useTRPC } from "@/lib/trpc/client";

export function InvitationsCard({ teamSlug, canInviteOwners }: { teamSlug: string; canInviteOwners: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(invitationSchema, { email: "", role: "member" });
  const pending = useQuery(trpc.team.invitations.queryOptions({ teamSlug }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.team.invitations.queryKey({ teamSlug }) });
  const invite = useMutation(
    trpc.team.invite.mutationOptions({
      meta: { done: "Invitation created" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async () => {
        form.reset({ email: "", role: form.getValues("role") });
        await refresh();
      },
    }),
  );
  const revoke = useMutation(
    trpc.team.revokeInvitation.mutationOptions({ onSuccess: refresh, meta: { done: "Invitation revoked" } }),
  );

  return (
    <Card title="Invitations">
      <form
        onSubmit={form.handleSubmit((values) => invite.mutate({ teamSlug, ...values }))}
        className="flex flex-col gap-3 sm:flex-row sm:items-end"
        noValidate
      >
        <div className="flex-1">
          <Field label="Email" type="email" required {...fieldOf(form, "email")} />
        </div>
        <label className="mb-5 text-sm">
          <span className="block font-medium">Role</span>
          <Select className="mt-1" {...fieldOf(form, "role")}>
            <option value="member">member</option>
            <option value="admin">admin</option>
            {canInviteOwners ? <option value="owner">owner</option> : null}
          </Select>
        </label>
        <Button type="submit" className="mb-5" icon={Send} pending={invite.isPending} pendingLabel="Inviting…">
          Invite
        </Button>
      </form>
      <ErrorMessage error={formLevelError(form) ?? revoke.error} />
      {invite.data ? (
        <div className="mt-2 space-y-1 rounded-md bg-ok-soft p-3 text-sm" role="status">
          <p>
            {invite.data.emailed
              ? "Invitation emailed. You can also share the link:"
              : "Share this link with the person you invited (valid for 7 days):"}
          </p>
          <CopyField label="Invitation link" value={invite.data.link} />
        </div>
      ) : null}
      <h3 className="mt-6 mb-2 text-sm font-semibold">Pending</h3>
      {pending.data?.length === 0 ? <p className="text-sm text-subtle">No pending invitations.</p> : null}
      <ul className="divide-y divide-line-faint">
        {pending.data?.map((invitation) => (
          <li key={invitation.id} className="flex flex-wrap items-center gap-3 py-2 text-sm">
            <span className="min-w-0 flex-1 truncate">{invitation.email}</span>
            <span className="rounded-full bg-sunken px-2 py-0.5 text-xs">{invitation.role}</span>
            <span className="text-xs text-subtle">
              expires <When at={invitation.expiresAt} />
            </span>
            <Button
              variant="danger"
              size="sm"
              icon={Ban}
              pending={revoke.isPending && revoke.variables.invitationId === invitation.id}
              pendingLabel="Revoking…"
              onClick={() => revoke.mutate({ teamSlug, invitationId: invitation.id })}
            >
              Revoke
            </Button>
          </li>
        ))}
      </ul>
    </Card>
  );
}
