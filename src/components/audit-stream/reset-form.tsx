"use client";

import { useMutation } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { DateInput } from "@/components/ui/date-input";
import { ErrorMessage } from "@/components/ui/feedback";
import { auditStreamResetSchema } from "@/lib/schemas/audit-stream";
import { fieldOf, formLevelError, showRefusal, useZodForm } from "@/lib/forms";
import { useTRPC } from "@/lib/trpc/client";

/**
 * The cursor: back, to send entries again (from a day, UTC, or every kept one), or forward past
 * everything written so far. Entries skipped are not sent; the move is in the audit log.
 */
export function AuditStreamResetForm({ teamSlug, onMoved }: { teamSlug: string; onMoved(): Promise<unknown> }) {
  const trpc = useTRPC();
  const form = useZodForm(auditStreamResetSchema, { to: "day", day: "" });
  const reset = useMutation(
    trpc.auditStream.reset.mutationOptions({
      meta: { done: "Cursor moved" },
      onError: (error) => showRefusal(form, error),
    }),
  );
  const skipping = form.watch("to") === "now";
  const submit = form.handleSubmit(async (values) => {
    await reset.mutateAsync({ teamSlug, ...values }).catch(() => undefined);
    await onMoved();
  });
  return (
    <form onSubmit={submit} className="space-y-3 rounded-md border border-line p-3" noValidate>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Move the cursor</legend>
        <label className="flex flex-wrap items-center gap-2 text-sm">
          <input type="radio" value="day" className="size-4" {...form.register("to")} />
          Send again from the day (UTC)
        </label>
        <div className="ml-6">
          <DateInput aria-label="Day to send again from (UTC)" {...fieldOf(form, "day")} />
        </div>
        <label className="flex items-start gap-2 text-sm">
          <input type="radio" value="oldest" className="mt-0.5 size-4" {...form.register("to")} />
          Send every kept entry again
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="radio" value="now" className="mt-0.5 size-4" {...form.register("to")} />
          Skip to now: what is waiting is not sent
        </label>
      </fieldset>
      {skipping ? (
        <p className="text-sm text-danger">
          The entries waiting now are never sent. Moving the cursor back later sends them again.
        </p>
      ) : null}
      <ErrorMessage error={formLevelError(form)} />
      <Button
        type="submit"
        variant={skipping ? "danger" : "secondary"}
        pending={form.formState.isSubmitting}
        pendingLabel="Moving…"
      >
        {skipping ? "Skip what is waiting" : "Move the cursor"}
      </Button>
    </form>
  );
}
