"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, DangerZone, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field, TextAreaField } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { formatHostList, parseHostList, refererHostsHint, sourceHostsHint } from "./hosts";
import { formErrors } from "@/lib/form-errors";

export function ProjectSettings({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const project = useQuery(trpc.project.get.queryOptions({ teamSlug, projectSlug }));
  if (project.isPending || team.isPending) return <Loading />;
  if (project.error) return <ErrorMessage error={project.error} />;
  const canEdit = team.data?.can["project.update"] ?? false;
  if (!canEdit) return <p className="text-sm text-neutral-600">Only admins and owners can change project settings.</p>;
  return (
    <div className="space-y-6">
      <SettingsForm teamSlug={teamSlug} projectSlug={projectSlug} project={project.data.project} />
      <DangerZone>
        <DeleteProject teamSlug={teamSlug} projectSlug={projectSlug} />
      </DangerZone>
    </div>
  );
}

function SettingsForm({
  teamSlug,
  projectSlug,
  project,
}: {
  teamSlug: string;
  projectSlug: string;
  project: { name: string; slug: string; allowedSourceHosts: string[]; allowedRefererHosts: string[] };
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [name, setName] = useState(project.name);
  const [slug, setSlug] = useState(project.slug);
  const [sources, setSources] = useState(formatHostList(project.allowedSourceHosts));
  const [referers, setReferers] = useState(formatHostList(project.allowedRefererHosts));
  const update = useMutation(
    trpc.project.update.mutationOptions({
      onSuccess: async (saved) => {
        // Show the normalised form the server stored.
        setSources(formatHostList(saved.allowedSourceHosts));
        setReferers(formatHostList(saved.allowedRefererHosts));
        await queryClient.invalidateQueries();
        if (saved.slug !== projectSlug) router.replace(`/t/${teamSlug}/p/${saved.slug}/settings`);
      },
    }),
  );
  const errors = formErrors(update.error, ["name", "slug", "allowedSourceHosts", "allowedRefererHosts"]);
  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate({
      teamSlug,
      projectSlug,
      name,
      slug,
      allowedSourceHosts: parseHostList(sources),
      allowedRefererHosts: parseHostList(referers),
    });
  }
  return (
    <Card title="Project settings">
      <form onSubmit={submit} className="space-y-4" noValidate>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Project name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.field.name}
            required
          />
          <Field
            label="Project slug"
            value={slug}
            onChange={(e) => setSlug(e.target.value.toLowerCase())}
            error={errors.field.slug}
            required
            hint="Changing it changes every image URL of the project."
          />
        </div>
        <TextAreaField
          label="Allowed source hosts"
          rows={4}
          value={sources}
          onChange={(e) => setSources(e.target.value)}
          error={errors.field.allowedSourceHosts}
          hint={sourceHostsHint}
        />
        <TextAreaField
          label="Allowed referer hosts"
          rows={3}
          value={referers}
          onChange={(e) => setReferers(e.target.value)}
          error={errors.field.allowedRefererHosts}
          hint={refererHostsHint}
        />
        <ErrorMessage error={errors.form} />
        {update.isSuccess ? (
          <p role="status" className="text-sm text-green-700">
            Saved. Image requests use the new settings at once.
          </p>
        ) : null}
        <Button type="submit" disabled={update.isPending}>
          Save settings
        </Button>
      </form>
    </Card>
  );
}

function DeleteProject({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const remove = useMutation(trpc.project.delete.mutationOptions());
  return (
    <ConfirmDialog
      trigger={<Button variant="danger">Delete project</Button>}
      title="Delete this project?"
      description="Its API keys are deleted and every image URL of the project stops working at once. This cannot be undone."
      confirmLabel="Delete project"
      typeToConfirm={projectSlug}
      onConfirm={async (typed) => {
        await remove.mutateAsync({ teamSlug, projectSlug, confirmSlug: typed });
        router.push(`/t/${teamSlug}`);
      }}
    />
  );
}
