import { QueryClient } from "@tanstack/react-query";
import { beforeEach, describe, expect, it } from "vitest";
import { currentToasts, dismissToast } from "@/components/ui/toast-store";
import { toastingMutationCache, type MutationToast } from "@/lib/trpc/mutation-toasts";

/** A mutation's outcome, as the dashboard's toasts report it. */
async function run(meta: MutationToast | undefined, outcome: () => Promise<unknown>) {
  const client = new QueryClient({ mutationCache: toastingMutationCache() });
  const mutation = client.getMutationCache().build(client, { mutationFn: outcome, meta, retry: false });
  await mutation.execute(undefined).catch(() => undefined);
}

describe("the toasts mutations raise", () => {
  beforeEach(() => {
    for (const t of currentToasts()) dismissToast(t.id);
  });

  it("say what was done, or that it did not go through, only for mutations that opt in", async () => {
    await run({ done: "Preset saved" }, async () => "ok");
    await run({ done: "Preset saved" }, async () => Promise.reject(new Error("Invalid operation")));
    await run({ done: "Key revoked", failed: "The key is still active" }, async () => Promise.reject(new Error("x")));
    await run(undefined, async () => Promise.reject(new Error("a sign-in probe")));
    await run(undefined, async () => "ok");
    expect(currentToasts().map(({ tone, title }) => [tone, title])).toEqual([
      ["success", "Preset saved"],
      ["failure", "That did not go through"],
      ["failure", "The key is still active"],
    ]);
    // The server's message stays with the form that sent it, never repeated in the toast.
    expect(currentToasts().some((t) => t.description?.includes("Invalid operation"))).toBe(false);
  });

  it("keep the three newest", async () => {
    for (const n of [1, 2, 3, 4]) await run({ done: `Saved ${n}` }, async () => n);
    expect(currentToasts().map((t) => t.title)).toEqual(["Saved 2", "Saved 3", "Saved 4"]);
  });
});
