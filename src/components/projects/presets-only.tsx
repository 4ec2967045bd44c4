"use client";

import { hashKey, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { useTRPC } from "@/lib/trpc/client";
import { RuleImpact } from "./rule-impact";

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
              <RuleImpact {...impact.data} testId="presets-only-impact" />
            )}
          </div>
        </ConfirmDialog>
      )}
    </Card>
  );
}
