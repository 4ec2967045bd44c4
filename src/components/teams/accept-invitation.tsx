"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { ErrorMessage, Loading } from "@/components/ui/feedback";
import { useTRPC } from "@/lib/trpc/client";

export function AcceptInvitation({ token, signedInAs }: { token: string; signedInAs: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const preview = useQuery(trpc.account.invitation.queryOptions({ token }));
  const accept = useMutation(trpc.account.acceptInvitation.mutationOptions({ meta: { done: "Invitation accepted" } }));
  // Declined, the account goes on to make a team of its own (onboarding makes it when none waits).
  const decline = useMutation(
    trpc.account.declineInvitation.mutationOptions({ meta: { done: "Invitation declined" } }),
  );
  if (preview.isPending) return <Loading />;
  if (preview.error) return <ErrorMessage error={preview.error} />;
  const invitation = preview.data;
  const here = `/invite/${token}`;
  if (invitation.status !== "pending")
    return <p role="alert">This invitation is {invitation.status}. Ask a team admin for a new link.</p>;
  return (
    <div className="space-y-4">
      <p>
        You are invited to join <strong>{invitation.teamName}</strong> as <strong>{invitation.role}</strong>. The
        invitation is for {invitation.email}.
      </p>
      {signedInAs === null ? (
        <div className="flex flex-wrap gap-3">
          <Link
            className="rounded-md bg-ink px-4 py-2 text-sm text-on-solid"
            href={`/sign-up?next=${encodeURIComponent(here)}`}
          >
            Create an account
          </Link>
          <Link
            className="rounded-md border border-line-strong px-4 py-2 text-sm"
            href={`/sign-in?next=${encodeURIComponent(here)}`}
          >
            Sign in
          </Link>
        </div>
      ) : (
        <>
          <p className="text-sm text-muted">Signed in as {signedInAs}.</p>
          <ErrorMessage error={accept.error ?? decline.error} />
          <div className="flex flex-wrap gap-3">
            <Button
              pending={accept.isPending}
              pendingLabel="Joining…"
              disabled={decline.isPending}
              onClick={() => accept.mutate({ token }, { onSuccess: (joined) => router.push(`/t/${joined.teamSlug}`) })}
            >
              Accept invitation
            </Button>
            <Button
              variant="secondary"
              pending={decline.isPending}
              pendingLabel="Declining…"
              disabled={accept.isPending}
              onClick={() => decline.mutate({ token }, { onSuccess: () => router.push("/onboarding") })}
            >
              Decline
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
