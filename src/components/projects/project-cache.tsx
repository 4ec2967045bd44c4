"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { DataTable } from "@/components/usage/data-table";
import { describeStoreShare } from "@/components/usage/store-share";
import { When } from "@/components/ui/when";
import { formatCount } from "@/lib/format";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { purgeSourceSchema } from "@/lib/schemas/cache";
import { useTRPC } from "@/lib/trpc/client";

interface Purged {
  source: string | null;
  cdnTag: string;
  deletedObjects: number;
  widened: boolean;
}

/** Project → Cache: the project's share of the store, recent purges, and (admins) purging a source or everything. */
export function ProjectCache({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const status = useQuery(trpc.cache.status.queryOptions({ teamSlug, projectSlug }));
  if (status.isPending || team.isPending) return <Loading />;
  if (status.error) return <ErrorMessage error={status.error} />;
  const canPurge = team.data?.can["cache.purge"] ?? false;
  const { store, lastPurgedAt, purgedSources } = status.data;
  return (
    <div className="space-y-6">
      <Card title="Result cache">
        <p className="text-sm text-muted" data-testid="cache-store">
          {describeStoreShare(store)}{" "}
          {lastPurgedAt ? (
            <>
              Last purge: <When at={lastPurgedAt} />.
            </>
          ) : (
            "Never purged."
          )}
        </p>
      </Card>
      {canPurge ? (
        <PurgeForms teamSlug={teamSlug} projectSlug={projectSlug} />
      ) : (
        <p className="text-sm text-muted">Only admins and owners can purge the cache.</p>
      )}
      <Card title="Purged sources">
        {purgedSources.length === 0 ? (
          <p className="text-sm text-muted">No source purged since the last whole-project purge.</p>
        ) : (
          <DataTable
            label="Purged sources"
            testId="purged-sources"
            rows={purgedSources}
            rowKey={(p) => p.source}
            columns={[
              { header: "Source", cell: (p) => <span className="font-mono text-xs break-all">{p.source}</span> },
              { header: "Purged", cell: (p) => <When at={p.purgedAt} /> },
            ]}
          />
        )}
      </Card>
    </div>
  );
}

function PurgeForms({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(purgeSourceSchema, { source: "" });
  const purge = useMutation(
    trpc.cache.purge.mutationOptions({
      meta: { done: "Purged" },
      // "Purge everything" does not submit the form: its last refusals go when a purge starts.
      onMutate: () => form.clearErrors(),
      onError: (error) => showRefusal(form, error),
      onSuccess: () => queryClient.invalidateQueries(),
    }),
  );
  return (
    <Card title="Purge">
      <form
        onSubmit={form.handleSubmit((values) => purge.mutate({ teamSlug, projectSlug, ...values }))}
        className="space-y-4"
        noValidate
      >
        <Field
          label="Source URL"
          placeholder="https://images.example.com/photos/cat.jpg"
          hint="Every size and format made from this source is made again from the origin on its next request, on every instance within about a second. The query string is ignored."
          {...fieldOf(form, "source")}
        />
        <ErrorMessage error={formLevelError(form)} />
        {purge.data ? <PurgeDone purged={purge.data} /> : null}
        <div className="flex flex-wrap gap-3">
          <Button type="submit" pending={purge.isPending} pendingLabel="Purging…">
            Purge source
          </Button>
          <ConfirmDialog
            trigger={
              <Button type="button" variant="danger" icon={Trash2}>
                Purge everything
              </Button>
            }
            title="Purge every result of this project?"
            description="Every image of the project is transformed again on its next request, which costs transforms and loads your origins."
            confirmLabel="Purge everything"
            onConfirm={async () => {
              await purge.mutateAsync({ teamSlug, projectSlug });
            }}
          />
        </div>
      </form>
    </Card>
  );
}

function PurgeDone({ purged }: { purged: Purged }) {
  return (
    <div role="status" className="space-y-1 text-sm text-ok" data-testid="purge-done">
      <p>
        {purged.source ? `Purged ${purged.source}` : "Purged every result of the project"}
        {purged.widened
          ? " (too many single purges since the last whole purge, so the whole project was purged)"
          : ""}: {formatCount(purged.deletedObjects)} stored results deleted.
      </p>
      <p className="text-ink-soft">
        To drop the same images from your CDN, purge the tag <code className="font-mono">{purged.cdnTag}</code>{" "}
        (docs/caching.md).
      </p>
    </div>
  );
}
