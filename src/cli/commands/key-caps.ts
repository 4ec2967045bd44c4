import type { Command } from "@commander-js/extra-typings";
import { capAmount, SPEND_CAPS, SPEND_CAP_NAMES, type SpendCap, type SpendCapName } from "@/lib/schemas/spend-cap";
import { updateApiKey, type ApiKeyRow } from "@/server/tenancy/api-keys";
import * as arg from "../arguments";
import { JSON_HELP, PROJECT_HELP, TEAM_HELP, type Cli } from "../command-context";
import { withReadDatabase, withWriteDatabase } from "../context";
import { table } from "../output";
import { findProjectKey, resolveProject } from "../scope";

const NO_CAP: SpendCap = { transformsPerDay: null, transformsPerMonth: null, bytesPerDay: null, bytesPerMonth: null };

/**
 * `keys caps`: a key's spend caps and what it spent of them; with a cap option, changes them (the
 * others are kept). Without one it reads and changes nothing.
 */
export function registerKeyCaps(keys: Command, cli: Cli): void {
  keys
    .command("caps")
    .description("show a key's spend caps and this day's and month's spending; options change them (none: no cap)")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .requiredOption("--key <pk_…>", "the key's public key (optstuff keys list)", arg.publicKey)
    .option("--transforms-per-day <n|none>", "new images a UTC day", arg.capTransforms)
    .option("--transforms-per-month <n|none>", "new images a UTC month", arg.capTransforms)
    .option("--mb-per-day <n|none>", "megabytes delivered a UTC day, cache hits included", arg.capMegabytes)
    .option("--mb-per-month <n|none>", "megabytes delivered a UTC month, cache hits included", arg.capMegabytes)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const asked: Partial<Record<SpendCapName, number | "none">> = {
        transformsPerDay: options.transformsPerDay,
        transformsPerMonth: options.transformsPerMonth,
        bytesPerDay: options.mbPerDay,
        bytesPerMonth: options.mbPerMonth,
      };
      const changes = Object.fromEntries(
        Object.entries(asked).flatMap(([cap, value]) =>
          value === undefined ? [] : [[cap, value === "none" ? null : value]],
        ),
      );
      const key =
        Object.keys(changes).length === 0
          ? await withReadDatabase(ctx, async (db) => {
              const { scope } = await resolveProject(db, options.team, options.project);
              return findProjectKey({ db, now: () => new Date() }, scope, options.key);
            })
          : await withWriteDatabase(ctx, async (deps) => {
              const { scope } = await resolveProject(deps.db, options.team, options.project);
              const current = await findProjectKey(deps, scope, options.key);
              await updateApiKey(deps, scope, current.id, { spendCap: { ...NO_CAP, ...current.spendCap, ...changes } });
              return findProjectKey(deps, scope, options.key);
            });
      ctx.out.result(capsOf(key), () => describe(key));
    });
}

function capsOf(key: ApiKeyRow) {
  return {
    publicKey: key.publicKey,
    spendCap: key.spendCap,
    capReached: key.capReached,
    spent: Object.fromEntries((key.capUses ?? []).map((use) => [use.cap, use.spent])),
  };
}

function describe(key: ApiKeyRow): string {
  const uses = new Map((key.capUses ?? []).map((use) => [use.cap, use]));
  const rows = SPEND_CAP_NAMES.map((cap) => {
    const use = uses.get(cap);
    const limit = key.spendCap?.[cap] ?? null;
    return {
      cap: SPEND_CAPS[cap].label,
      limit: limit === null ? "none" : capAmount(cap, limit),
      spent: use ? `${capAmount(cap, use.spent)} (${use.percent} %)` : "",
    };
  });
  const reached = key.capReached
    ? `\nCap reached (${SPEND_CAPS[key.capReached.cap].label}): new images are refused until ${key.capReached.until.toISOString()}.`
    : "";
  return `${key.name} (${key.publicKey})\n${table(rows, "")}${reached}`;
}
