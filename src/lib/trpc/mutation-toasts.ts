import { hashKey, MutationCache, type Mutation } from "@tanstack/react-query";
import { dismissFailuresOf, toast } from "@/lib/toast-store";

/**
 * What a mutation says when it is done, given as its `meta`: `useMutation({ ..., meta: { done: "Preset
 * saved" } })`. A failure says `failed` (or a plain "did not go through"); its reason stays in the form
 * that sent it, next to the field to fix.
 */
// A type, not an interface: TanStack takes the registered meta only if it is a Record.
export type MutationToast = {
  done?: string;
  failed?: string;
};

declare module "@tanstack/react-query" {
  interface Register {
    mutationMeta: MutationToast;
  }
}

/**
 * A failure toast is taken back when the same mutation then succeeds (the form corrected and sent
 * again): left up, it would still say "did not go through" beside the success.
 */
export function toastingMutationCache(): MutationCache {
  return new MutationCache({
    onSuccess: (_data, _variables, _context, mutation) => {
      const done = mutation.meta?.done;
      const source = sourceOf(mutation);
      if (source) dismissFailuresOf(source);
      if (done) toast({ tone: "success", title: done, source });
    },
    onError: (_error, _variables, _context, mutation) => {
      const meta = mutation.meta;
      if (!meta?.done && !meta?.failed) return;
      toast({
        tone: "failure",
        title: meta.failed ?? "That did not go through",
        description: "Nothing was changed. The reason is shown where you sent it.",
        source: sourceOf(mutation),
      });
    },
  });
}

/** Which mutation it was: its key (tRPC's procedure path), or else the words its toasts use. */
function sourceOf(mutation: Mutation<unknown, unknown, unknown, unknown>): string | undefined {
  const key = mutation.options.mutationKey;
  if (key) return hashKey(key);
  const meta = mutation.meta;
  return meta?.done ?? meta?.failed;
}
