import { MutationCache } from "@tanstack/react-query";
import { toast } from "@/components/ui/toast-store";

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

export function toastingMutationCache(): MutationCache {
  return new MutationCache({
    onSuccess: (_data, _variables, _context, mutation) => {
      const done = mutation.meta?.done;
      if (done) toast({ tone: "success", title: done });
    },
    onError: (_error, _variables, _context, mutation) => {
      const meta = mutation.meta;
      if (!meta?.done && !meta?.failed) return;
      toast({
        tone: "failure",
        title: meta.failed ?? "That did not go through",
        description: "Nothing was changed. The reason is shown where you sent it.",
      });
    },
  });
}
