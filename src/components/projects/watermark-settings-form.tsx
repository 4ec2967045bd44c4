"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, ErrorMessage } from "@/components/ui/feedback";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import { COMPASS_GRAVITIES } from "@/lib/compass";
import type { WatermarkSettings } from "@/server/config-cache/project-images";
import { Select } from "@/components/ui/select";

type Scope = { teamSlug: string; projectSlug: string };

/** The watermark's placement, as the project's default (a URL's wm_ values override it) and the every-output switch. */
export function WatermarkSettingsForm({ scope, settings }: { scope: Scope; settings: WatermarkSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState(() => ({
    opacity: String(settings.opacity),
    gravity: settings.gravity,
    x: String(settings.x),
    y: String(settings.y),
    scale: String(settings.scale),
    always: settings.always,
  }));
  const save = useMutation(
    trpc.projectImage.setWatermark.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }),
  );
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [field]: e.target.value });

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({
      ...scope,
      ...form,
      opacity: Number(form.opacity),
      x: Number(form.x),
      y: Number(form.y),
      scale: Number(form.scale),
    });
  }
  return (
    <Card title="Placement">
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2" noValidate>
        <Field
          label="Opacity"
          type="number"
          step="0.05"
          min="0.05"
          max="1"
          value={form.opacity}
          onChange={set("opacity")}
          hint="0.05 (faint) to 1 (opaque)."
        />
        <label className="block text-sm font-medium">
          Position
          <Select className="mt-1 w-full" value={form.gravity} onChange={set("gravity")}>
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
          value={form.x}
          onChange={set("x")}
          hint="In from the left or right edge (× dpr)."
        />
        <Field
          label="Offset y (px)"
          type="number"
          min="0"
          max="1000"
          value={form.y}
          onChange={set("y")}
          hint="In from the top or bottom edge (× dpr)."
        />
        <Field
          label="Scale"
          type="number"
          step="0.05"
          min="0"
          max="1"
          value={form.scale}
          onChange={set("scale")}
          hint="Share of the output's width (0.05–1); 0 keeps its own size."
        />
        <label className="flex items-center gap-2 self-center text-sm">
          <input
            type="checkbox"
            checked={form.always}
            onChange={(e) => setForm({ ...form, always: e.target.checked })}
            data-testid="watermark-always"
          />
          On every output (URLs cannot move or fade it)
        </label>
        <div className="space-y-2 sm:col-span-2">
          <ErrorMessage error={save.error} />
          {save.isSuccess ? (
            <p role="status" className="text-sm text-green-700" data-testid="watermark-placement-saved">
              Placement saved.
            </p>
          ) : null}
          <Button type="submit" disabled={save.isPending}>
            Save placement
          </Button>
        </div>
      </form>
    </Card>
  );
}
