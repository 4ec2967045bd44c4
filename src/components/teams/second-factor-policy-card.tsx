"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { checkboxOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { useTRPC } from "@/lib/trpc/client";

const policySchema = z.object({ requireSecondFactor: z.boolean() });

/**
 * "Members must use a second factor": a member without one is sent to set it up before any of the
 * team's pages open (the image API is not affected). The admin turning it on needs one first.
 */
export function SecondFactorPolicyCard({
  teamSlug,
  required,
  byInstance,
}: {
  teamSlug: string;
  required: boolean;
  byInstance: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(policySchema, { requireSecondFactor: required });
  const update = useMutation(
    trpc.team.update.mutationOptions({
      meta: { done: "Security settings saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async (team) => {
        form.reset({ requireSecondFactor: team.requireSecondFactor });
        await queryClient.invalidateQueries({ queryKey: trpc.team.get.queryKey({ teamSlug }) });
      },
    }),
  );
  const refused = form.formState.errors.requireSecondFactor?.message;
  return (
    <Card title="Security">
      {byInstance ? (
        <p className="text-sm">This server requires a second factor of every account, so every member has one.</p>
      ) : (
        <form
          onSubmit={form.handleSubmit((values) => update.mutate({ teamSlug, ...values }))}
          className="space-y-3"
          noValidate
        >
          <label className="flex items-start gap-2 text-sm">
            <input
              className="mt-1"
              aria-describedby="second-factor-policy-hint"
              {...checkboxOf(form, "requireSecondFactor")}
            />
            <span>Members must use a second factor</span>
          </label>
          <p id="second-factor-policy-hint" className="text-xs text-muted">
            A member without one is asked to set it up before the team&apos;s pages open. Image URLs keep working. You
            set up your own on{" "}
            <Link className="underline" href="/account">
              your account page
            </Link>
            .
          </p>
          <ErrorMessage error={refused ? { message: refused } : formLevelError(form)} />
          <Button type="submit" pending={update.isPending} pendingLabel="Saving…">
            Save
          </Button>
        </form>
      )}
    </Card>
  );
}
