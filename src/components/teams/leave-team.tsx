"use client";

import { useId } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

type Role = "owner" | "admin" | "member";

/** Why the viewer may not leave (members.ts refuses the same): a team keeps at least one owner. */
export function leaveRefusal(myRole: Role, members: ReadonlyArray<{ role: Role }>): string | null {
  if (myRole !== "owner" || members.filter((m) => m.role === "owner").length > 1) return null;
  return "You are the last owner: make someone else owner or delete the team";
}

/** Leave, after a confirmation; for the last owner a disabled button, described by why. */
export function LeaveTeam({ refusal, onLeave }: { refusal: string | null; onLeave(): Promise<unknown> }) {
  const reason = useId();
  if (refusal)
    return (
      <div className="flex max-w-xs flex-col gap-1">
        <Button variant="secondary" disabled aria-describedby={reason}>
          Leave team
        </Button>
        <p id={reason} className="text-xs text-muted">
          {refusal}
        </p>
      </div>
    );
  return (
    <ConfirmDialog
      trigger={<Button variant="secondary">Leave team</Button>}
      title="Leave this team?"
      description="You lose access to its projects."
      confirmLabel="Leave"
      onConfirm={onLeave}
    />
  );
}
