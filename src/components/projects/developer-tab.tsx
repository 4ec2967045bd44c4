"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyField } from "@/components/ui/copy-field";
import { Card, EmptyState, ErrorMessage, Loading } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { envBlock, nextImageSnippet, nextjsSnippet, nodeSnippet } from "@/lib/snippets";
import { Select } from "@/components/ui/select";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { signUrlFormSchema } from "@/lib/schemas/developer";
import { useTRPC } from "@/lib/trpc/client";

/** How long a tester URL works. Below admin one of the expiring choices is required (at most 7 days). */
const lifetimes = [
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "1 day" },
  { seconds: 7 * 86_400, label: "7 days" },
  { seconds: null, label: "Never (admins only)" },
] as const;

const validity = (seconds: number | null) =>
  seconds === null ? "never expires" : `valid ${lifetimes.find((l) => l.seconds === seconds)?.label ?? `${seconds} s`}`;

export function DeveloperTab({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const project = useQuery(trpc.project.get.queryOptions({ teamSlug, projectSlug }));
  const keys = useQuery(trpc.apiKey.list.queryOptions({ teamSlug, projectSlug }));
  const usable = keys.data?.filter((k) => k.status === "active" || k.status === "rotating") ?? [];
  if (project.isPending || keys.isPending) return <Loading />;
  if (project.error) return <ErrorMessage error={project.error} />;
  const firstKey = usable[0];
  return (
    <div className="space-y-6">
      <Card title="URL tester">
        {usable.length === 0 ? (
          <EmptyState title="No active key">Create a key in API keys first.</EmptyState>
        ) : (
          <UrlTester
            teamSlug={teamSlug}
            projectSlug={projectSlug}
            keys={usable}
            mayBePermanent={team.data?.can["developer.signPermanent"] ?? false}
          />
        )}
      </Card>
      <Card title="Snippets">
        <div className="space-y-4">
          <CopyField
            label="Environment"
            value={envBlock({ baseUrl: project.data.baseUrl, projectSlug, publicKey: firstKey?.publicKey ?? "pk_…" })}
            multiline
          />
          <CopyField
            label="Next.js with @optstuff/client (next/image)"
            value={nextImageSnippet(project.data.project.allowedSourceHosts)}
            multiline
          />
          <CopyField label="Next.js" value={nextjsSnippet()} multiline />
          <CopyField label="Node" value={nodeSnippet()} multiline />
        </div>
      </Card>
    </div>
  );
}

function UrlTester({
  teamSlug,
  projectSlug,
  keys,
  mayBePermanent,
}: {
  teamSlug: string;
  projectSlug: string;
  keys: Array<{ id: string; name: string; publicKey: string }>;
  /** Admins may sign a URL without expiry; the server refuses it to anyone else. */
  mayBePermanent: boolean;
}) {
  const trpc = useTRPC();
  const form = useZodForm(signUrlFormSchema, {
    keyId: keys[0]!.id,
    expiresInSeconds: "3600",
    operations: "w_640,f_auto",
    source: "",
  });
  const [preview, setPreview] = useState<"loading" | "loaded" | "failed">("loading");
  const sign = useMutation(
    trpc.developer.signUrl.mutationOptions({
      onMutate: () => setPreview("loading"),
      onError: (error) => showRefusal(form, error),
    }),
  );
  return (
    <div className="space-y-4">
      <form
        onSubmit={form.handleSubmit((values) => sign.mutate({ teamSlug, projectSlug, ...values }))}
        className="space-y-4"
        noValidate
      >
        <label className="block text-sm">
          <span className="block font-medium">Key</span>
          <Select className="mt-1 w-full" {...fieldOf(form, "keyId")}>
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.publicKey.slice(0, 10)}…)
              </option>
            ))}
          </Select>
        </label>
        <label className="block text-sm">
          <span className="block font-medium">Expires</span>
          <Select className="mt-1 w-full" {...fieldOf(form, "expiresInSeconds")}>
            {lifetimes
              .filter((l) => l.seconds !== null || mayBePermanent)
              .map((l) => (
                <option key={l.label} value={l.seconds ?? "never"}>
                  {l.label}
                </option>
              ))}
          </Select>
          <span className="mt-1 block text-xs text-neutral-500">
            {mayBePermanent
              ? "A URL that never expires keeps working after its signer leaves the team: choose it deliberately."
              : "Tester URLs expire within 7 days."}
          </span>
        </label>
        <Field
          label="Operations"
          hint="Comma-separated, e.g. w_640,h_480,f_webp,q_80; _ for none."
          {...fieldOf(form, "operations")}
        />
        <Field
          label="Source"
          placeholder="images.example.com/photo.jpg"
          hint="Host and path of the original (https assumed), or local/<path>."
          required
          {...fieldOf(form, "source")}
        />
        <ErrorMessage error={formLevelError(form)} />
        <Button type="submit" disabled={sign.isPending || !form.watch("source")}>
          Sign and preview
        </Button>
      </form>
      {sign.data ? (
        <div className="space-y-3">
          <CopyField
            label={`Signed URL (${validity(sign.variables?.expiresInSeconds ?? null)})`}
            value={sign.data.url}
          />
          <p className="text-sm" role="status" aria-live="polite" data-testid="preview-status">
            {preview === "loading"
              ? "Loading preview…"
              : preview === "loaded"
                ? "Preview loaded."
                : "The image did not load: open the URL to see the error."}
          </p>
          {/* The signed URL itself, exactly as an integrator's page would load it: next/image would fetch
              it through Next's own optimizer instead, which is not what is being tested. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img
            key={sign.data.url}
            src={sign.data.url}
            alt="Preview of the signed URL"
            data-testid="preview-image"
            className="max-h-96 max-w-full rounded-md border border-neutral-200"
            onLoad={() => setPreview("loaded")}
            onError={() => setPreview("failed")}
          />
        </div>
      ) : null}
    </div>
  );
}
