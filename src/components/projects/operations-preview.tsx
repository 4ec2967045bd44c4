"use client";

import { useMutation } from "@tanstack/react-query";
import { Eye } from "lucide-react";
import sample from "../../../demo/photo.jpg";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { formatBytes, formatMs, formatPercent } from "@/lib/format";
import type { showRefusal } from "@/lib/forms";
import { useTRPC } from "@/lib/trpc/client";
import type { OperationsPreview as Preview, PreviewFacts } from "@/server/delivery/preview-operations";

type Scope = { teamSlug: string; projectSlug: string };

/**
 * Before and after: the sample photo, and what the operations make of it for this project (its default
 * quality and watermark applied as its URLs would), with format, size, bytes and time. A refusal goes to
 * `onRefused` (the form's field) when given, else it is shown here.
 */
export function OperationsPreview({
  scope,
  operations,
  label = "Preview on the sample photo",
  onRefused,
}: {
  scope: Scope;
  /** The operations to show, read when the button is pressed. */
  operations: () => string;
  label?: string;
  onRefused?: (error: Parameters<typeof showRefusal>[1]) => void;
}) {
  const trpc = useTRPC();
  const preview = useMutation(trpc.preset.preview.mutationOptions({ onError: onRefused }));
  return (
    <div className="space-y-3">
      <Button
        variant="secondary"
        icon={Eye}
        pending={preview.isPending}
        pendingLabel="Making the preview…"
        onClick={() => preview.mutate({ ...scope, operations: operations() })}
      >
        {label}
      </Button>
      {onRefused ? null : <ErrorMessage error={preview.error} />}
      {preview.data ? <BeforeAfter shown={preview.data} /> : null}
    </div>
  );
}

function BeforeAfter({ shown }: { shown: Preview }) {
  const share = shown.after.bytes / shown.before.bytes;
  return (
    <div className="grid gap-4 sm:grid-cols-2" data-testid="operations-preview">
      <Figure caption="Before" facts={shown.before} src={sample.src} detail="The sample photo" />
      <Figure
        caption="After"
        facts={shown.after}
        src={shown.image}
        detail={`${formatPercent(share, share < 0.1 ? 1 : 0)} of the original's bytes, made in ${formatMs(shown.after.ms)}`}
      />
    </div>
  );
}

function Figure({
  caption,
  facts,
  src,
  detail,
}: {
  caption: string;
  facts: PreviewFacts;
  src: string | null;
  detail: string;
}) {
  const summary = `${facts.format.toUpperCase()} ${facts.width} × ${facts.height}, ${formatBytes(facts.bytes)}`;
  return (
    <figure className="space-y-1">
      <div className="flex h-48 items-center justify-center overflow-hidden rounded-md border border-line bg-[repeating-conic-gradient(var(--color-neutral-200)_0_25%,var(--color-white)_0_50%)] bg-[length:16px_16px]">
        {src ? (
          // eslint-disable-next-line @next/next/no-img-element -- a data: URL or the sample as built, shown as it is
          <img src={src} alt={`${caption}: ${summary}`} className="max-h-48 max-w-full object-contain" />
        ) : (
          <p className="p-4 text-center text-sm text-muted">Too large to show here; the facts below are exact.</p>
        )}
      </div>
      <figcaption className="text-sm">
        <span className="font-medium">{caption}:</span>{" "}
        <span data-testid={`preview-${caption.toLowerCase()}`}>{summary}</span>
        <span className="block text-xs text-muted">{detail}</span>
      </figcaption>
    </figure>
  );
}
