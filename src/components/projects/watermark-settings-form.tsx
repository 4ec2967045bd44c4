"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { COMPASS_GRAVITIES } from "@/lib/compass";
import { checkboxOf, fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { watermarkSettingsSchema, type WatermarkSettings } from "@/lib/schemas/watermark";
import { useTRPC } from "@/lib/trpc/client";

type Scope = { teamSlug: string; projectSlug: string };

/** The watermark's placement, as the project's default (a URL's wm_ values override it) and the every-output switch. */
export function WatermarkSettingsForm({ scope, settings }: { scope: Scope; settings: WatermarkSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(watermarkSettingsSchema, settings);
  const save = useMutation(
    trpc.projectImage.setWatermark.mutationOptions({
      meta: { done: "Watermark settings saved" },
      onError: (error) => showRefusal(form, error),
      onSuccess: () => queryClient.invalidateQueries(),
    }),
  );
  const number = (name: "opacity" | "x" | "y" | "scale") => fieldOf(form, name, { valueAsNumber: true });

  return (
    <Card title="Placement">
      <form
        onSubmit={form.handleSubmit((values) => save.mutate({ ...scope, ...values }))}
        className="grid gap-4 sm:grid-cols-2"
        noValidate
      >
        <Field
          label="Opacity"
          type="number"
          step="0.05"
          min="0.05"
          max="1"
          hint="0.05 (faint) to 1 (opaque)."
          {...number("opacity")}
        />
        <label className="block text-sm font-medium">
          Position
          <Select className="mt-1 w-full" {...fieldOf(form, "gravity")}>
            {COMPASS_GRAVITIES.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </Select>
        </label>
        <Field
          label="Offset x (px)"
          type="number"
          min="0"
          max="1000"
          hint="In from the left or right edge (× dpr)."
          {...number("x")}
        />
        <Field
          label="Offset y (px)"
          type="number"
          min="0"
          max="1000"
          hint="In from the top or bottom edge (× dpr)."
          {...number("y")}
        />
        <Field
          label="Scale"
          type="number"
          step="0.05"
          min="0"
          max="1"
          hint="Share of the output's width (0.05–1); 0 keeps its own size."
          {...number("scale")}
        />
        <label className="flex items-center gap-2 self-center text-sm">
          <input data-testid="watermark-always" {...checkboxOf(form, "always")} />
          On every output (URLs cannot move or fade it)
        </label>
        <div className="space-y-2 sm:col-span-2">
          <ErrorMessage error={formLevelError(form)} />
          {save.isSuccess ? (
            <p role="status" className="text-sm text-ok" data-testid="watermark-placement-saved">
              Placement saved.
            </p>
          ) : null}
          <Button type="submit" pending={save.isPending} pendingLabel="Saving…">
            Save placement
          </Button>
        </div>
      </form>
    </Card>
  );
}
