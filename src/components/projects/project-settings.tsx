"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, DangerZone, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field, TextAreaField } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { formatHostList, projectFormSchema } from "@/lib/schemas/project";
import { useSlugFollowsName } from "@/lib/slug-follows-name";
import { refererHostsHint, sourceHostsHint } from "./hosts";

export function ProjectSettings({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const project = useQuery(trpc.project.get.queryOptions({ teamSlug, projectSlug }));
  if (project.isPending || team.isPending) return <Loading />;
  if (project.error) return <ErrorMessage error={project.error} />;
  const canEdit = team.data?.can["project.update"] ?? false;
  if (!canEdit) return <p className="text-sm text-muted">Only admins and owners can change project settings.</p>;
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
  const form = useZodForm(projectFormSchema, asFormValues(project));
  const update = useMutation(
    trpc.project.update.mutationOptions({
      meta: { done: "Project settings saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: async (saved) => {
        // Show the normalised form the server stored.
        form.reset(asFormValues(saved));
        await queryClient.invalidateQueries();
        if (saved.slug !== projectSlug) router.replace(`/t/${teamSlug}/p/${saved.slug}/settings`);
      },
    }),
  );
  const { name, slug } = useSlugFollowsName(form, { follow: false });
  return (
    <Card title="Project settings">
      <form
        onSubmit={form.handleSubmit((values) => update.mutate({ teamSlug, projectSlug, ...values }))}
        className="space-y-4"
        noValidate
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Project name" required {...name} />
          <Field label="Project slug" required hint="Changing it changes every image URL of the project." {...slug} />
        </div>
        <TextAreaField
          label="Allowed source hosts"
          rows={4}
          hint={sourceHostsHint}
          {...fieldOf(form, "allowedSourceHosts")}
        />
        <TextAreaField
          label="Allowed referer hosts"
          rows={3}
          hint={refererHostsHint}
          {...fieldOf(form, "allowedRefererHosts")}
        />
        <ErrorMessage error={formLevelError(form)} />
        {update.isSuccess ? (
          <p role="status" className="text-sm text-ok">
            Saved. Image requests use the new settings at once.
          </p>
        ) : null}
        <Button type="submit" pending={update.isPending} pendingLabel="Saving…">
          Save settings
        </Button>
      </form>
    </Card>
  );
}

const asFormValues = (project: {
  name: string;
  slug: string;
  allowedSourceHosts: string[];
  allowedRefererHosts: string[];
}) => ({
  name: project.name,
  slug: project.slug,
  allowedSourceHosts: formatHostList(project.allowedSourceHosts),
  allowedRefererHosts: formatHostList(project.allowedRefererHosts),
});

function DeleteProject({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const remove = useMutation(trpc.project.delete.mutationOptions({ meta: { done: "Project deleted" } }));
  return (
    <ConfirmDialog
      trigger={
        <Button variant="danger" icon={Trash2}>
          Delete project
        </Button>
      }
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
