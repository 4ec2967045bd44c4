"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Plus } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field, TextAreaField } from "@/components/ui/field";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { projectFormSchema } from "@/lib/schemas/project";
import { useSlugFollowsName } from "@/lib/slug-follows-name";
import { useTRPC } from "@/lib/trpc/client";
import { sourceHostsHint } from "./hosts";

/** Its open state is the page's, so an empty list's button opens the same dialog (see CreateKeyDialog). */
export function CreateProjectDialog({
  teamSlug,
  open,
  setOpen,
}: {
  teamSlug: string;
  open: boolean;
  setOpen(open: boolean): void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const form = useZodForm(projectFormSchema, { name: "", slug: "", allowedSourceHosts: "", allowedRefererHosts: "" });
  const create = useMutation(
    trpc.project.create.mutationOptions({
      meta: { done: "Project created" },
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
      trigger={<Button icon={Plus}>New project</Button>}
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
        <DialogActions
          onCancel={() => setOpen(false)}
          submitLabel="Create project"
          pending={create.isPending}
          pendingLabel="Creating…"
        />
      </form>
    </Dialog>
  );
}
