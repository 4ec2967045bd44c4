"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { slugify } from "@/lib/slugify";
import { TeamSlugField } from "./slug-input";
import { formErrors } from "@/lib/form-errors";

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
  const [name, setName] = useState(initialName);
  const [slug, setSlug] = useState(slugify(initialName));
  const [slugEdited, setSlugEdited] = useState(false);
  const mutation = useMutation(
    mode === "onboarding"
      ? trpc.account.completeOnboarding.mutationOptions()
      : trpc.account.createTeam.mutationOptions(),
  );

  const errors = formErrors(mutation.error, ["name"]);

  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate(
      { name, slug },
      {
        onSuccess: (team) => {
          router.push(next && next !== "/" ? next : `/t/${team.slug}`);
          router.refresh();
        },
      },
    );
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <Field
        label="Team name"
        name="name"
        value={name}
        required
        maxLength={80}
        error={errors.field.name}
        onChange={(e) => {
          setName(e.target.value);
          if (!slugEdited) setSlug(slugify(e.target.value));
        }}
      />
      <TeamSlugField
        value={slug}
        onChange={(value) => {
          setSlugEdited(true);
          setSlug(value);
        }}
      />
      <ErrorMessage error={errors.form} />
      <Button type="submit" className="w-full" disabled={mutation.isPending || !name || !slug}>
        {mode === "onboarding" ? "Continue" : "Create team"}
      </Button>
    </form>
  );
}
