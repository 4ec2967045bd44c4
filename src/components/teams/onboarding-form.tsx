"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { teamSchema } from "@/lib/schemas/team";
import { useSlugFollowsName } from "@/lib/slug-follows-name";
import { slugify } from "@/lib/slugify";
import { useTRPC } from "@/lib/trpc/client";
import { TeamSlugField } from "./slug-input";

/** Names the personal team (onboarding) or a new team; the slug follows the name until edited. */
export function TeamForm({
  mode,
  next,
  initialName = "",
}: {
  mode: "onboarding" | "create";
  next?: string;
  initialName?: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const form = useZodForm(teamSchema, { name: initialName, slug: slugify(initialName) });
  const options = {
    meta: { done: "Team created" },
    onError: (error: Parameters<typeof showRefusal>[1]) => showRefusal(form, error),
    onSuccess: (team: { slug: string }) => {
      router.push(next && next !== "/" ? next : `/t/${team.slug}`);
      router.refresh();
    },
  };
  const mutation = useMutation(
    mode === "onboarding"
      ? trpc.account.completeOnboarding.mutationOptions(options)
      : trpc.account.createTeam.mutationOptions(options),
  );
  const { name, slug } = useSlugFollowsName(form, { follow: true });
  const [nameValue, slugValue] = form.watch(["name", "slug"]);

  return (
    <form onSubmit={form.handleSubmit((values) => mutation.mutate(values))} className="space-y-4" noValidate>
      <Field label="Team name" required maxLength={80} {...name} />
      <TeamSlugField field={slug} value={slugValue} />
      <ErrorMessage error={formLevelError(form)} />
      <Button
        type="submit"
        className="w-full"
        disabled={!nameValue || !slugValue}
        pending={mutation.isPending}
        pendingLabel="Creating…"
      >
        {mode === "onboarding" ? "Continue" : "Create team"}
      </Button>
    </form>
  );
}
