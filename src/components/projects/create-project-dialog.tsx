"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { slugify } from "@/lib/slugify";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field, TextAreaField } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { parseHostList, sourceHostsHint } from "./hosts";
import { formErrors } from "@/lib/form-errors";

export function CreateProjectDialog({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [hosts, setHosts] = useState("");
  const create = useMutation(
    trpc.project.create.mutationOptions({
      onSuccess: async (project) => {
        await queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() });
        setOpen(false);
        router.push(`/t/${teamSlug}/p/${project.slug}`);
      },
    }),
  );

  const errors = formErrors(create.error, ["name", "slug", "allowedSourceHosts"]);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ teamSlug, name, slug, allowedSourceHosts: parseHostList(hosts) });
  }

  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="New project"
      description="A project has its own API keys and source rules."
      trigger={<Button>New project</Button>}
    >
      <form onSubmit={submit} className="space-y-4" noValidate>
        <Field
          label="Project name"
          value={name}
          error={errors.field.name}
          required
          onChange={(e) => {
            setName(e.target.value);
            setSlug(slugify(e.target.value));
          }}
        />
        <Field
          label="Project slug"
          value={slug}
          error={errors.field.slug}
          required
          onChange={(e) => setSlug(e.target.value.toLowerCase())}
          hint="Appears in image URLs: /api/v1/{slug}/…"
        />
        <TextAreaField
          label="Allowed source hosts"
          rows={3}
          value={hosts}
          onChange={(e) => setHosts(e.target.value)}
          error={errors.field.allowedSourceHosts}
          hint={sourceHostsHint}
        />
        <ErrorMessage error={errors.form} />
        <DialogActions onCancel={() => setOpen(false)} submitLabel="Create project" disabled={create.isPending} />
      </form>
    </Dialog>
  );
}
