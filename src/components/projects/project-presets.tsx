"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { CaptionField } from "@/components/operations/caption-field";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, EmptyWithFormBelow, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { DefaultQuality } from "./default-quality";
import { PresetsOnly } from "./presets-only";
import { DataTable } from "@/components/usage/data-table";
import { When } from "@/components/ui/when";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { presetSchema } from "@/lib/schemas/preset";
import { useTRPC } from "@/lib/trpc/client";
import { OperationsPreview } from "./operations-preview";

type Scope = { teamSlug: string; projectSlug: string };

/**
 * Project → Presets: named operations used in URLs as pr_{name}; admins edit them, the default quality
 * mode and "presets only".
 */
export function ProjectPresets({ teamSlug, projectSlug }: Scope) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const list = useQuery(trpc.preset.list.queryOptions({ teamSlug, projectSlug }));
  if (list.isPending || team.isPending) return <Loading />;
  if (list.error) return <ErrorMessage error={list.error} />;
  const canWrite = team.data?.can["preset.write"] ?? false;
  const { presets, presetsOnly, defaultQuality } = list.data;
  return (
    <div className="space-y-6">
      <Card title="Presets">
        <p className="mb-4 text-sm text-muted">
          Use a preset in a URL as <code className="font-mono">pr_name</code>; other operations in the URL override its
          values. Editing a preset changes what its URLs make (new ETags); nothing else is affected.
        </p>
        {presets.length === 0 ? (
          <EmptyWithFormBelow title="No presets yet" formId="preset-form" canWrite={canWrite} />
        ) : (
          <DataTable
            label="Presets"
            testId="presets"
            rows={presets}
            rowKey={(p) => p.name}
            columns={[
              { header: "In URLs", cell: (p) => <code className="font-mono text-xs">pr_{p.name}</code> },
              {
                header: "Operations",
                cell: (p) => <code className="font-mono text-xs break-all">{p.operations}</code>,
              },
              { header: "Changed", cell: (p) => <When at={p.updatedAt} /> },
              ...(canWrite
                ? [
                    {
                      header: "",
                      cell: (p: (typeof presets)[number]) => (
                        <DeletePreset scope={{ teamSlug, projectSlug }} name={p.name} />
                      ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Card>
      {canWrite ? (
        <>
          <SavePreset scope={{ teamSlug, projectSlug }} />
          <DefaultQuality scope={{ teamSlug, projectSlug }} level={defaultQuality} />
          <PresetsOnly scope={{ teamSlug, projectSlug }} presetsOnly={presetsOnly} />
        </>
      ) : (
        <p className="text-sm text-muted">
          {presetsOnly ? "This project accepts presets only. " : ""}Only admins and owners can change presets.
        </p>
      )}
    </div>
  );
}

function SavePreset({ scope }: { scope: Scope }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(presetSchema, { name: "", operations: "" });
  const save = useMutation(
    trpc.preset.save.mutationOptions({
      meta: { done: "Preset saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: () => queryClient.invalidateQueries(),
    }),
  );
  return (
    <Card title="Add or change a preset" id="preset-form">
      <form
        onSubmit={form.handleSubmit((values) => save.mutate({ ...scope, ...values }))}
        className="space-y-4"
        noValidate
      >
        <Field
          label="Name"
          {...fieldOf(form, "name")}
          placeholder="hero"
          hint="Lower-case letters, digits and dashes; saving an existing name replaces it."
        />
        <Field
          label="Operations"
          {...fieldOf(form, "operations")}
          placeholder="s_1200x630,g_auto,f_auto,q_75"
          hint="Written as in a URL (docs/url-format.md)."
        />
        <CaptionField
          operations={form.watch("operations")}
          onChange={(next) => form.setValue("operations", next, { shouldValidate: true, shouldDirty: true })}
        />
        <ErrorMessage error={formLevelError(form)} />
        {save.data ? (
          <p role="status" className="text-sm text-ok" data-testid="preset-saved">
            Saved pr_{save.data.name}.
          </p>
        ) : null}
        <div className="flex flex-wrap gap-3">
          <Button type="submit" pending={save.isPending} pendingLabel="Saving…">
            Save preset
          </Button>
        </div>
      </form>
      <div className="mt-4 border-t border-line pt-4">
        <OperationsPreview
          scope={scope}
          operations={() => form.getValues("operations")}
          onRefused={(error) => showRefusal(form, error)}
        />
      </div>
    </Card>
  );
}

function DeletePreset({ scope, name }: { scope: Scope; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.preset.delete.mutationOptions({
      meta: { done: "Preset deleted" },
      onSuccess: () => queryClient.invalidateQueries(),
    }),
  );
  return (
    <ConfirmDialog
      trigger={
        <Button type="button" variant="danger" size="sm" icon={Trash2}>
          Delete
        </Button>
      }
      title={`Delete pr_${name}?`}
      description="URLs that use it answer 400 from then on."
      confirmLabel="Delete preset"
      onConfirm={async () => {
        await remove.mutateAsync({ ...scope, name });
      }}
    />
  );
}
