import { QueryClient } from "@tanstack/react-query";
import { beforeEach, describe, expect, it } from "vitest";
import { currentToasts, dismissToast } from "@/lib/toast-store";
import { toastingMutationCache, type MutationToast } from "@/lib/trpc/mutation-toasts";

const client = new QueryClient({ mutationCache: toastingMutationCache() });

/** A mutation's outcome, as the dashboard's toasts report it (`key`: which procedure, as tRPC keys it). */
async function run(meta: MutationToast | undefined, outcome: () => Promise<unknown>, key?: unknown[]) {
  const mutation = client
    .getMutationCache()
    .build(client, { mutationFn: outcome, meta, retry: false, ...(key && { mutationKey: key }) });
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

  it("take a failure back once the same save, corrected, goes through; another's failure stays", async () => {
    const save = [["project", "update"]];
    const other = [["alerts", "saveSettings"]];
    await run({ done: "Alert settings saved" }, async () => Promise.reject(new Error("x")), other);
    await run({ done: "Project settings saved" }, async () => Promise.reject(new Error("x")), save);
    await run({ done: "Project settings saved" }, async () => Promise.reject(new Error("x")), save);
    await run({ done: "Project settings saved" }, async () => "ok", save);
    expect(currentToasts().map(({ tone, title }) => [tone, title])).toEqual([
      ["failure", "That did not go through"],
      ["success", "Project settings saved"],
    ]);
    // Without a key (a mutation outside tRPC), its own words say which save it was.
    for (const t of currentToasts()) dismissToast(t.id);
    await run({ done: "Preset saved" }, async () => Promise.reject(new Error("x")));
    await run({ done: "Preset saved" }, async () => "ok");
    expect(currentToasts().map(({ tone }) => tone)).toEqual(["success"]);
  });

  it("keep the three newest", async () => {
    for (const n of [1, 2, 3, 4]) await run({ done: `Saved ${n}` }, async () => n);
    expect(currentToasts().map((t) => t.title)).toEqual(["Saved 2", "Saved 3", "Saved 4"]);
  });
});
