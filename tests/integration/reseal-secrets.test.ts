import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { resealSecrets } from "@/server/tenancy/reseal-secrets";
import { createTestDatabase } from "../support/database";

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.close());

describe("master-secret rotation", () => {
  it("re-seals every secret under the new master so the old one can be dropped, idempotently", async () => {
    const old = createSecretBox("master-2025");
    const first = await bootstrap({ db: database.db, secretBox: old }, { teamSlug: "acme", projectSlug: "blog", keyName: "a" });
    const second = await createApiKey({ db: database.db, secretBox: old }, { projectId: first.project.id, name: "b" });

    const rotating = createSecretBox("master-2026", "master-2025");
    const outcome = await resealSecrets({ db: database.db, secretBox: rotating });
    expect(outcome).toMatchObject({ resealed: 2, current: 0 });
    expect(outcome.publicKeys.sort()).toEqual([first.key.publicKey, second.publicKey].sort());
    expect(await resealSecrets({ db: database.db, secretBox: rotating })).toEqual({ resealed: 0, current: 2, publicKeys: [] });

    const rotated = createSecretBox("master-2026");
    const rows = await database.db.select({ publicKey: apiKeys.publicKey, sealed: apiKeys.encryptedSecret }).from(apiKeys);
    const opened = Object.fromEntries(rows.map((r) => [r.publicKey, rotated.open(r.sealed, r.publicKey)]));
    expect(opened).toEqual({ [first.key.publicKey]: first.key.secretKey, [second.publicKey]: second.secretKey });
  });
});
