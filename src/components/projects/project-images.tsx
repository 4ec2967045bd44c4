"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle, Trash2 } from "lucide-react";
import type { inferRouterOutputs } from "@trpc/server";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { When } from "@/components/ui/when";
import { OperationsPreview } from "./operations-preview";
import { useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/api/root";
import { WatermarkSettingsForm } from "./watermark-settings-form";

type Scope = { teamSlug: string; projectSlug: string };
type Images = inferRouterOutputs<AppRouter>["projectImage"]["get"];
type Kind = "watermark" | "fallback";

const ACCEPT = "image/png,image/jpeg,image/webp,image/gif,image/avif";

/** Project → Images: the watermark (wm, or every output) and the fallback image served when a source fails. */
export function ProjectImages({ teamSlug, projectSlug }: Scope) {
  const trpc = useTRPC();
  const scope = { teamSlug, projectSlug };
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const images = useQuery(trpc.projectImage.get.queryOptions(scope));
  if (images.isPending || team.isPending) return <Loading />;
  if (images.error) return <ErrorMessage error={images.error} />;
  const canWrite = team.data?.can["image.write"] ?? false;
  const { watermark, fallback } = images.data;
  return (
    <div className="space-y-6">
      <Card title="Watermark">
        <p className="mb-4 text-sm text-muted">
          Drawn over the output by <code className="font-mono">wm</code> in a URL (its values override the placement
          below), or over every output when the project says so. A new image or placement makes new variants: nothing
          stale is served.
        </p>
        <ImageFacts image={watermark} kind="watermark" />
        {canWrite ? <ImageActions scope={scope} kind="watermark" present={watermark !== null} /> : null}
      </Card>
      {watermark ? (
        canWrite ? (
          <>
            <WatermarkSettingsForm scope={scope} settings={watermark.settings} />
            <Card title="Placement preview">
              <p className="mb-3 text-sm text-muted">
                The saved placement on the sample photo, 800 px wide, as an image URL of this project makes it.
              </p>
              <OperationsPreview
                scope={scope}
                operations={() => (watermark.settings.always ? "w_800" : "w_800,wm")}
                label="Preview the saved placement"
              />
            </Card>
          </>
        ) : (
          <Card title="Placement">
            <p className="text-sm text-muted" data-testid="watermark-placement">
              {describePlacement(watermark.settings)}
            </p>
          </Card>
        )
      ) : null}
      <Card title="Fallback image">
        <p className="mb-4 text-sm text-muted">
          Served instead of the JSON error when a source is missing, fails, times out or is not an image, transformed
          with the URL&apos;s operations, cached for 60 seconds and marked with{" "}
          <code className="font-mono">X-OptStuff-Fallback</code>. The error still reaches the request log.
        </p>
        <ImageFacts image={fallback} kind="fallback" />
        {canWrite ? <ImageActions scope={scope} kind="fallback" present={fallback !== null} /> : null}
      </Card>
      {canWrite ? null : (
        <p className="text-sm text-muted">Only admins and owners can change the project&apos;s images.</p>
      )}
    </div>
  );
}

function ImageFacts({ image, kind }: { image: Images["watermark"] | Images["fallback"]; kind: Kind }) {
  if (!image)
    return (
      <p className="text-sm text-muted" data-testid={`${kind}-none`}>
        None uploaded.
      </p>
    );
  return (
    <div className="mb-4 flex items-start gap-4" data-testid={`${kind}-facts`}>
      {/* A data URL of the stored bytes: no request to the image route, no key needed to preview. */}
      {/* eslint-disable-next-line @next/next/no-img-element */}
      <img
        src={image.preview}
        alt={`The project's ${kind}`}
        className="max-h-32 max-w-48 rounded border border-line bg-[repeating-conic-gradient(var(--color-neutral-200)_0_25%,var(--color-white)_0_50%)] bg-[length:16px_16px]"
      />
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 text-sm">
        <dt className="text-subtle">Format</dt>
        <dd>{image.format.toUpperCase()}</dd>
        <dt className="text-subtle">Size</dt>
        <dd>
          {image.width}×{image.height} px, {(image.bytes / 1024).toFixed(1)} KiB
        </dd>
        <dt className="text-subtle">Changed</dt>
        <dd>
          <When at={image.updatedAt} />
        </dd>
      </dl>
    </div>
  );
}

function ImageActions({ scope, kind, present }: { scope: Scope; kind: Kind; present: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const done = { onSuccess: () => queryClient.invalidateQueries() };
  const upload = useMutation(trpc.projectImage.upload.mutationOptions({ ...done, meta: { done: "Image uploaded" } }));
  const remove = useMutation(trpc.projectImage.delete.mutationOptions({ ...done, meta: { done: "Image removed" } }));
  async function choose(file: File | undefined) {
    if (!file) return;
    upload.mutate({ ...scope, kind, base64: await base64Of(file) });
  }
  return (
    <div className="space-y-3">
      <label className="block text-sm font-medium">
        {present ? "Replace the image" : "Upload an image"}
        <input
          type="file"
          accept={ACCEPT}
          data-testid={`${kind}-file`}
          className="mt-1 block w-full text-sm text-muted file:mr-3 file:min-h-10 file:cursor-pointer file:rounded-md file:border file:border-line-strong file:bg-surface file:px-4 file:text-sm file:font-medium file:text-ink hover:file:bg-sunken disabled:opacity-60"
          disabled={upload.isPending}
          onChange={(e) => void choose(e.target.files?.[0])}
        />
      </label>
      <p className="text-xs text-subtle">PNG, JPEG, WebP, GIF or AVIF; at most 512 KiB and 2048 px a side.</p>
      {upload.isPending ? (
        <p role="status" className="flex items-center gap-2 text-sm text-muted">
          <LoaderCircle aria-hidden className="size-4 animate-spin motion-reduce:animate-none" /> Uploading…
        </p>
      ) : null}
      <ErrorMessage error={upload.error ?? remove.error} />
      {upload.isSuccess ? (
        <p role="status" className="text-sm text-ok" data-testid={`${kind}-saved`}>
          Saved.
        </p>
      ) : null}
      {present ? (
        <ConfirmDialog
          trigger={
            <Button type="button" variant="danger" icon={Trash2}>
              Remove {kind === "watermark" ? "the watermark" : "the fallback image"}
            </Button>
          }
          title={kind === "watermark" ? "Remove the watermark?" : "Remove the fallback image?"}
          description={
            kind === "watermark"
              ? "URLs with wm answer 400 from then on."
              : "Failed sources answer their JSON error again."
          }
          confirmLabel="Remove"
          onConfirm={async () => {
            await remove.mutateAsync({ ...scope, kind });
          }}
        />
      ) : null}
    </div>
  );
}

function describePlacement(s: NonNullable<Images["watermark"]>["settings"]): string {
  const size = s.scale === 0 ? "at its own size" : `${Math.round(s.scale * 100)} % of the output's width`;
  return `${s.gravity}, ${s.x} × ${s.y} px in, ${Math.round(s.opacity * 100)} % opaque, ${size}; ${s.always ? "on every output" : "on URLs with wm"}.`;
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
