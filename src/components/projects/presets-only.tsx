"use client";

import { hashKey, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { PresetsOnlyImpact } from "@/server/analytics/presets-only-impact";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { When } from "@/components/ui/when";
import { useTRPC } from "@/lib/trpc/client";

type Scope = { teamSlug: string; projectSlug: string };

/** Project → Presets → "Presets only": off at once; on only after seeing what it would refuse. */
export function PresetsOnly({ scope, presetsOnly }: { scope: Scope; presetsOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  // Counted while the confirmation is open only, and not again when the switch invalidates the rest.
  const impact = useQuery({ ...trpc.preset.presetsOnlyImpact.queryOptions(scope), enabled: asking });
  const set = useMutation(
    trpc.preset.setPresetsOnly.mutationOptions({
      meta: { done: "Presets-only setting saved" },
      onSuccess: () =>
        queryClient.invalidateQueries({
          predicate: (query) => query.queryHash !== hashKey(trpc.preset.presetsOnlyImpact.queryKey(scope)),
        }),
    }),
  );
  return (
    <Card title="Presets only">
      <p className="mb-4 text-sm text-muted" data-testid="presets-only">
        {presetsOnly
          ? "On: URLs of this project must be a single preset; anything else is refused with 400."
          : "Off: URLs may use any operations. Turn it on to cap what your integrators' URLs can make."}
      </p>
      <ErrorMessage error={set.error} />
      {presetsOnly ? (
        <Button
          type="button"
          variant="secondary"
          disabled={set.isPending}
          onClick={() => set.mutate({ ...scope, presetsOnly: false })}
        >
          {set.isPending ? "Saving…" : "Accept any operations"}
        </Button>
      ) : (
        // Turning it on breaks every URL that is not one preset: say how many, and ask first.
        <ConfirmDialog
          trigger={<Button type="button">Accept presets only</Button>}
          title="Accept presets only?"
          description="From then on every URL of this project that is not a single pr_{name} is answered 400."
          confirmLabel="Accept presets only"
          onOpenChange={setAsking}
          confirmDisabled={impact.isPending}
          onConfirm={() => set.mutateAsync({ ...scope, presetsOnly: true })}
        >
          <div role="status" className="mt-3 space-y-2 text-sm">
            {impact.isPending ? (
              <p className="text-muted">Counting the recent requests it would refuse…</p>
            ) : impact.error ? (
              <ErrorMessage error={impact.error} />
            ) : (
              <RefusedByPresetsOnly {...impact.data} />
            )}
          </div>
        </ConfirmDialog>
      )}
    </Card>
  );
}

/** What the project's recent requests say the switch would refuse. */
function RefusedByPresetsOnly({ days, requests, refused, examples, partial, lookedBackTo }: PresetsOnlyImpact) {
  const count = (n: number) => n.toLocaleString();
  return (
    <div data-testid="presets-only-impact" className="space-y-2">
      <p className={refused > 0 ? "font-medium text-danger" : "text-ink-soft"}>
        {requests === 0
          ? `No images delivered in the last ${days} days to judge by.`
          : lookedBackTo
            ? `${partial ? "At least " : ""}${count(refused)} of the latest ${count(requests)} images delivered would have been refused.`
            : `${partial ? "At least " : ""}${count(refused)} of the ${count(requests)} images delivered in the last ${days} days would have been refused.`}
      </p>
      {lookedBackTo ? (
        <p className="text-muted">
          Judged on the images delivered since <When at={lookedBackTo} />: a sample of the last {days} days.
        </p>
      ) : null}
      {examples.length > 0 ? (
        <>
          <p className="text-muted">Most used of their operations:</p>
          <ul className="space-y-1">
            {examples.map((segment) => (
              <li key={segment}>
                <code className="font-mono text-xs break-all">{segment}</code>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
