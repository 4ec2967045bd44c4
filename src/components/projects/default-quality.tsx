"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { Select } from "@/components/ui/select";
import { useTRPC } from "@/lib/trpc/client";

type Level = "best" | "good" | "eco" | "low";
const FIXED = "fixed";

/** What each mode does, in the words an integrator decides by (SSIMULACRA 2 targets from q_auto). */
const MODES: { value: Level | typeof FIXED; label: string }[] = [
  { value: FIXED, label: "Fixed: each format's default quality (JPEG and WebP 80, AVIF 50)" },
  { value: "best", label: "q_auto:best: visually lossless (score 90)" },
  { value: "good", label: "q_auto:good: very high (score 80)" },
  { value: "eco", label: "q_auto:eco: high (score 70)" },
  { value: "low", label: "q_auto:low: smallest acceptable (score 60)" },
];

/** Presets tab → Default quality: q_auto's level for URLs that name no quality, or the fixed defaults. */
export function DefaultQuality({
  scope,
  level,
}: {
  scope: { teamSlug: string; projectSlug: string };
  level: Level | null;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<string>(level ?? FIXED);
  const save = useMutation(
    trpc.preset.setDefaultQuality.mutationOptions({
      meta: { done: "Quality mode saved" },
      onSuccess: () => queryClient.invalidateQueries(),
    }),
  );
  const current = level ?? FIXED;
  return (
    <Card title="Default quality">
      <form
        className="space-y-3"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate({ ...scope, defaultQuality: chosen === FIXED ? null : (chosen as Level) });
        }}
      >
        <p className="text-sm text-muted" id="default-quality-hint">
          For URLs that name no quality (no <code className="font-mono">q_</code>,{" "}
          <code className="font-mono">q_auto</code> or <code className="font-mono">maxbytes_</code>, in the URL or its
          preset). A q_auto level finds, per image, the lowest quality that reaches its score. Changing it makes new
          variants (new ETags); a CDN keeps the bytes it holds until you purge them.
        </p>
        <label className="block text-sm font-medium" htmlFor="default-quality">
          Quality mode
        </label>
        <Select
          id="default-quality"
          aria-describedby="default-quality-hint"
          value={chosen}
          onChange={(event) => setChosen(event.target.value)}
          className="w-full sm:w-auto"
        >
          {MODES.map((mode) => (
            <option key={mode.value} value={mode.value}>
              {mode.label}
            </option>
          ))}
        </Select>
        <ErrorMessage error={save.error} />
        {save.isSuccess && chosen === current ? (
          <p role="status" className="text-sm text-ok">
            Saved. Image requests use it at once.
          </p>
        ) : null}
        <Button type="submit" disabled={chosen === current} pending={save.isPending} pendingLabel="Saving…">
          Save quality mode
        </Button>
      </form>
    </Card>
  );
}
