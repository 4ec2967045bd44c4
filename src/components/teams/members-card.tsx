"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UserMinus } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { useTRPC } from "@/lib/trpc/client";
import { Select } from "@/components/ui/select";

type Role = "owner" | "admin" | "member";

export function MembersCard({
  teamSlug,
  myRole,
  canManage,
  myUserId,
}: {
  teamSlug: string;
  myRole: Role;
  canManage: boolean;
  myUserId: string | undefined;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.team.members.queryOptions({ teamSlug }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.team.members.queryKey({ teamSlug }) });
  const changeRole = useMutation(
    trpc.team.changeRole.mutationOptions({ onSuccess: refresh, meta: { done: "Role changed" } }),
  );
  const remove = useMutation(
    trpc.team.removeMember.mutationOptions({ onSuccess: refresh, meta: { done: "Member removed" } }),
  );
  // Only owners touch owners (the server enforces the same rule).
  const roleChoices: Role[] = myRole === "owner" ? ["owner", "admin", "member"] : ["admin", "member"];

  return (
    <Card title="Members">
      {members.isPending ? <Loading /> : null}
      <ErrorMessage error={members.error ?? changeRole.error ?? remove.error} />
      <ul className="divide-y divide-line-faint">
        {members.data?.map((member) => {
          const editable = canManage && member.userId !== myUserId && (myRole === "owner" || member.role !== "owner");
          return (
            <li key={member.userId} className="flex flex-wrap items-center gap-3 py-3">
              <div className="min-w-0 flex-1">
                <p className="truncate font-medium">{member.name}</p>
                <p className="truncate text-sm text-muted">{member.email}</p>
              </div>
              {editable ? (
                <label className="text-sm">
                  <span className="sr-only">Role of {member.email}</span>
                  <Select
                    size="sm"
                    value={member.role}
                    disabled={changeRole.isPending}
                    onChange={(e) =>
                      changeRole.mutate({ teamSlug, userId: member.userId, role: e.target.value as Role })
                    }
                  >
                    {roleChoices.map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </Select>
                </label>
              ) : (
                <span className="rounded-full bg-sunken px-2 py-0.5 text-xs">{member.role}</span>
              )}
              {editable ? (
                <ConfirmDialog
                  trigger={
                    <Button variant="danger" size="sm" icon={UserMinus}>
                      Remove
                    </Button>
                  }
                  title={`Remove ${member.name}?`}
                  description="They lose access to this team's projects and keys at once."
                  confirmLabel="Remove"
                  onConfirm={() => remove.mutateAsync({ teamSlug, userId: member.userId })}
                />
              ) : null}
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
