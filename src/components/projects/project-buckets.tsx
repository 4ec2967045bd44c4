"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, EmptyWithFormBelow, ErrorMessage, Loading } from "@/components/ui/feedback";
import { DataTable } from "@/components/usage/data-table";
import { When } from "@/components/ui/when";
import { useTRPC } from "@/lib/trpc/client";
import { SaveBucketForm } from "./save-bucket-form";

type Scope = { teamSlug: string; projectSlug: string };

/** Project → Buckets: private S3-compatible buckets read as `s3/{alias}/{key}`; admins add, change and remove them. */
export function ProjectBuckets({ teamSlug, projectSlug }: Scope) {
  const trpc = useTRPC();
  const scope = { teamSlug, projectSlug };
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const list = useQuery(trpc.sourceBucket.list.queryOptions(scope));
  if (list.isPending || team.isPending) return <Loading />;
  if (list.error) return <ErrorMessage error={list.error} />;
  const canWrite = team.data?.can["bucket.write"] ?? false;
  const buckets = list.data;
  return (
    <div className="space-y-6">
      <Card title="Private buckets">
        <p className="mb-4 text-sm text-muted">
          Sign URLs with the source <code className="font-mono">s3/alias/path/to/image.jpg</code> to read an object from
          one of these buckets (AWS S3, Cloudflare R2, Google Cloud Storage&apos;s interoperability API, MinIO…).
          Secrets are sealed at rest and never shown again. Give the key read access to the objects only.
        </p>
        {buckets.length === 0 ? (
          <EmptyWithFormBelow title="No buckets yet" formId="bucket-form" canWrite={canWrite} />
        ) : (
          <DataTable
            label="Buckets"
            testId="buckets"
            rows={buckets}
            rowKey={(b) => b.alias}
            columns={[
              { header: "In URLs", cell: (b) => <code className="font-mono text-xs">s3/{b.alias}/…</code> },
              {
                header: "Bucket",
                cell: (b) => <span className="break-all">{`${b.bucket}${b.prefix ? `/${b.prefix}` : ""}`}</span>,
              },
              {
                header: "Endpoint",
                cell: (b) => (
                  <span className="break-all text-xs">{`${b.endpoint} (${b.region}${b.forcePathStyle ? ", path style" : ""})`}</span>
                ),
              },
              { header: "Access key", cell: (b) => <code className="font-mono text-xs">{b.accessKeyIdHint}</code> },
              { header: "Changed", cell: (b) => <When at={b.updatedAt} /> },
              ...(canWrite
                ? [
                    {
                      header: "",
                      cell: (b: (typeof buckets)[number]) => <DeleteBucket scope={scope} alias={b.alias} />,
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Card>
      {canWrite ? (
        <SaveBucketForm scope={scope} />
      ) : (
        <p className="text-sm text-muted">Only admins and owners can change buckets.</p>
      )}
    </div>
  );
}

function DeleteBucket({ scope, alias }: { scope: Scope; alias: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.sourceBucket.delete.mutationOptions({
      meta: { done: "Bucket deleted" },
      onSuccess: () => queryClient.invalidateQueries(),
    }),
  );
  return (
    <ConfirmDialog
      trigger={
        <Button type="button" variant="danger" size="sm" icon={Trash2}>
          Remove
        </Button>
      }
      title={`Remove s3/${alias}?`}
      description="URLs that read from it answer 403 from then on; its sealed secret is deleted."
      confirmLabel="Remove bucket"
      onConfirm={async () => {
        await remove.mutateAsync({ ...scope, alias });
      }}
    />
  );
}
