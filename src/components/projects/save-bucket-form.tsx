"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { checkboxOf, fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { bucketSchema } from "@/lib/schemas/source-bucket";
import { useTRPC } from "@/lib/trpc/client";

type Scope = { teamSlug: string; projectSlug: string };

const EMPTY = {
  alias: "",
  endpoint: "",
  region: "us-east-1",
  bucket: "",
  prefix: "",
  forcePathStyle: true,
  accessKeyId: "",
  secretAccessKey: "",
};

/** Adds a bucket, or replaces the one an alias names (its secret is kept when the field is left empty). */
export function SaveBucketForm({ scope }: { scope: Scope }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(bucketSchema, EMPTY);
  const save = useMutation(
    trpc.sourceBucket.save.mutationOptions({
      meta: { done: "Bucket saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: () => {
        // keepFieldsRef: the checkbox is ticked again too (a registered checkbox keeps its DOM state otherwise).
        form.reset(EMPTY, { keepFieldsRef: true });
        return queryClient.invalidateQueries();
      },
    }),
  );
  const field = (name: Exclude<keyof typeof EMPTY, "forcePathStyle">) => fieldOf(form, name);

  return (
    <Card title="Add or change a bucket" id="bucket-form">
      <form
        onSubmit={form.handleSubmit((values) =>
          save.mutate({ ...scope, ...values, secretAccessKey: values.secretAccessKey || undefined }),
        )}
        className="grid gap-4 sm:grid-cols-2"
        noValidate
        autoComplete="off"
      >
        <Field
          label="Alias"
          placeholder="media"
          hint="In URLs as s3/alias/…; saving an existing alias replaces it."
          {...field("alias")}
        />
        <Field
          label="Endpoint"
          placeholder="https://s3.eu-west-1.amazonaws.com"
          hint="R2: https://ACCOUNT.r2.cloudflarestorage.com; GCS: https://storage.googleapis.com"
          {...field("endpoint")}
        />
        <Field label="Region" hint="auto for R2." {...field("region")} />
        <Field label="Bucket" placeholder="my-images" {...field("bucket")} />
        <Field
          label="Key prefix"
          placeholder="public/"
          hint="Put before every key read (optional)."
          {...field("prefix")}
        />
        <label className="flex items-center gap-2 self-center text-sm">
          <input {...checkboxOf(form, "forcePathStyle")} />
          Path-style addresses (MinIO and most non-AWS servers)
        </label>
        <Field label="Access key id" {...field("accessKeyId")} />
        <Field
          label="Secret access key"
          type="password"
          hint="Sealed on save and never shown again; leave empty to keep an existing alias's secret."
          {...field("secretAccessKey")}
        />
        <div className="space-y-2 sm:col-span-2">
          <ErrorMessage error={formLevelError(form)} />
          {save.data ? (
            <p role="status" className="text-sm text-ok" data-testid="bucket-saved">
              Saved s3/{save.data.alias}.
            </p>
          ) : null}
          <Button type="submit" pending={save.isPending} pendingLabel="Saving…">
            Save bucket
          </Button>
        </div>
      </form>
    </Card>
  );
}
