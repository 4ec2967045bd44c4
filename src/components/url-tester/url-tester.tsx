"use client";

import { useMutation } from "@tanstack/react-query";
import { CaptionField } from "@/components/operations/caption-field";
import { Button } from "@/components/ui/button";
import { CopyField } from "@/components/ui/copy-field";
import { ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { signUrlFormSchema } from "@/lib/schemas/developer";
import { useTRPC } from "@/lib/trpc/client";
import { OriginalCompare } from "./original-compare";
import { UrlTesterAnswer } from "./url-tester-answer";
import { useUrlProbe } from "./use-url-probe";

/** How long a tester URL works. Below admin one of the expiring choices is required (at most 7 days). */
const lifetimes = [
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "1 day" },
  { seconds: 7 * 86_400, label: "7 days" },
  { seconds: null, label: "Never (admins only)" },
] as const;

const validity = (seconds: number | null) =>
  seconds === null ? "never expires" : `valid ${lifetimes.find((l) => l.seconds === seconds)?.label ?? `${seconds} s`}`;

/**
 * Signs a URL on the server (the secret never reaches the browser), then requests it as a page's image
 * would and shows what the route answered.
 */
export function UrlTester({
  teamSlug,
  projectSlug,
  keys,
  mayBePermanent,
  hasRefererList,
}: {
  teamSlug: string;
  projectSlug: string;
  keys: Array<{ id: string; name: string; publicKey: string }>;
  /** Admins may sign a URL without expiry; the server refuses it to anyone else. */
  mayBePermanent: boolean;
  /** The project refuses requests whose Referer is not listed: the tester's own request may be one. */
  hasRefererList: boolean;
}) {
  const trpc = useTRPC();
  const form = useZodForm(signUrlFormSchema, {
    keyId: keys[0]!.id,
    expiresInSeconds: "3600",
    operations: "w_640,f_auto",
    source: "",
  });
  const { probe, run, reset, showPreview } = useUrlProbe();
  // The same source and key with other operations: the original beside the answer.
  const signOther = useMutation(trpc.developer.signUrl.mutationOptions());
  const sign = useMutation(
    trpc.developer.signUrl.mutationOptions({
      onMutate: reset,
      onSuccess: (signed) => void run(signed.url),
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
          <span className="mt-1 block text-xs text-subtle">
            {mayBePermanent
              ? "A URL that never expires keeps working after its signer leaves the team: choose it deliberately."
              : "Tester URLs expire within 7 days."}
          </span>
        </label>
        <Field
          label="Operations"
          hint="Comma-separated, e.g. w_640,h_480,f_webp,q_80; _ for none; info for the source's facts as JSON."
          {...fieldOf(form, "operations")}
        />
        <CaptionField
          operations={form.watch("operations")}
          onChange={(next) => form.setValue("operations", next, { shouldValidate: true, shouldDirty: true })}
        />
        <Field
          label="Source"
          placeholder="images.example.com/photo.jpg"
          hint="Host and path of the original (https assumed), local/<path> or s3/<alias>/<key>: on the project's allowed source hosts or buckets."
          required
          {...fieldOf(form, "source")}
        />
        <ErrorMessage error={formLevelError(form)} />
        <Button type="submit" disabled={!form.watch("source")} pending={sign.isPending} pendingLabel="Signing…">
          Sign and preview
        </Button>
      </form>
      {sign.data ? (
        <div className="space-y-3">
          <CopyField
            label={`Signed URL (${validity(sign.variables?.expiresInSeconds ?? null)})`}
            value={sign.data.url}
          />
          <a
            href={sign.data.url}
            target="_blank"
            rel="noopener noreferrer"
            className="inline-block text-sm font-medium text-ink underline underline-offset-2"
          >
            Open the signed URL in a new tab
          </a>
          <UrlTesterAnswer probe={probe} hasRefererList={hasRefererList} onPreview={showPreview} />
          {probe.phase === "answered" && probe.answer.kind === "image" && sign.variables?.operations !== "_" ? (
            <OriginalCompare
              key={sign.data.url}
              outputBytes={probe.answer.bytes}
              sign={async (operations) => (await signOther.mutateAsync({ ...sign.variables!, operations })).url}
            />
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
