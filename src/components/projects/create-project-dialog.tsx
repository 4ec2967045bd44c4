"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field, TextAreaField } from "@/components/ui/field";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { projectFormSchema } from "@/lib/schemas/project";
import { useSlugFollowsName } from "@/lib/slug-follows-name";
import { useTRPC } from "@/lib/trpc/client";
import { sourceHostsHint } from "./hosts";

export function CreateProjectDialog({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const form = useZodForm(projectFormSchema, { name: "", slug: "", allowedSourceHosts: "", allowedRefererHosts: "" });
  const create = useMutation(
    trpc.project.create.mutationOptions({
      onError: (error) => showRefusal(form, error),
      onSuccess: async (project) => {
        await queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() });
        setOpen(false);
        router.push(`/t/${teamSlug}/p/${project.slug}`);
      },
    }),
  );
  const slugFields = useSlugFollowsName(form, { follow: true });

  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="New project"
      description="A project has its own API keys and source rules."
      trigger={<Button>New project</Button>}
    >
      <form
        onSubmit={form.handleSubmit((values) => create.mutate({ teamSlug, ...values }))}
        className="space-y-4"
        noValidate
      >
        <Field label="Project name" required {...slugFields.name} />
        <Field label="Project slug" required hint="Appears in image URLs: /api/v1/{slug}/…" {...slugFields.slug} />
        <TextAreaField
          label="Allowed source hosts"
          rows={3}
          hint={sourceHostsHint}
          {...fieldOf(form, "allowedSourceHosts")}
        />
        <ErrorMessage error={formLevelError(form)} />
        <DialogActions onCancel={() => setOpen(false)} submitLabel="Create project" disabled={create.isPending} />
      </form>
    </Dialog>
  );
}
