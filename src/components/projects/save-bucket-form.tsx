"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
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
  const [form, setForm] = useState(EMPTY);
  const save = useMutation(
    trpc.sourceBucket.save.mutationOptions({
      onSuccess: () => {
        setForm(EMPTY);
        return queryClient.invalidateQueries();
      },
    }),
  );
  const set = (field: keyof typeof EMPTY) => (e: { target: { value: string } }) =>
    setForm({ ...form, [field]: e.target.value });

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ ...scope, ...form, secretAccessKey: form.secretAccessKey || undefined });
  }
  return (
    <Card title="Add or change a bucket">
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2" noValidate autoComplete="off">
        <Field
          label="Alias"
          value={form.alias}
          onChange={set("alias")}
          placeholder="media"
          hint="In URLs as s3/alias/…; saving an existing alias replaces it."
        />
        <Field
          label="Endpoint"
          value={form.endpoint}
          onChange={set("endpoint")}
          placeholder="https://s3.eu-west-1.amazonaws.com"
          hint="R2: https://ACCOUNT.r2.cloudflarestorage.com; GCS: https://storage.googleapis.com"
        />
        <Field label="Region" value={form.region} onChange={set("region")} hint="auto for R2." />
        <Field label="Bucket" value={form.bucket} onChange={set("bucket")} placeholder="my-images" />
        <Field
          label="Key prefix"
          value={form.prefix}
          onChange={set("prefix")}
          placeholder="public/"
          hint="Put before every key read (optional)."
        />
        <label className="flex items-center gap-2 self-center text-sm">
          <input
            type="checkbox"
            checked={form.forcePathStyle}
            onChange={(e) => setForm({ ...form, forcePathStyle: e.target.checked })}
          />
          Path-style addresses (MinIO and most non-AWS servers)
        </label>
        <Field label="Access key id" value={form.accessKeyId} onChange={set("accessKeyId")} />
        <Field
          label="Secret access key"
          type="password"
          value={form.secretAccessKey}
          onChange={set("secretAccessKey")}
          hint="Sealed on save and never shown again; leave empty to keep an existing alias's secret."
        />
        <div className="space-y-2 sm:col-span-2">
          <ErrorMessage error={save.error} />
          {save.data ? (
            <p role="status" className="text-sm text-green-700" data-testid="bucket-saved">
              Saved s3/{save.data.alias}.
            </p>
          ) : null}
          <Button type="submit" disabled={save.isPending}>
            Save bucket
          </Button>
        </div>
      </form>
    </Card>
  );
}
