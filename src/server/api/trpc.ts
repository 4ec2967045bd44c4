import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z } from "zod";
import { AppError, errorCatalogue } from "@/server/errors";
import { assertInstanceOwner } from "@/server/tenancy/audit-scope";
import { limitsFor, type DashboardCall } from "@/server/ratelimit/dashboard-limits";
import type { Permission } from "@/server/tenancy/roles";
import { assertSecondFactor, projectInTeam, teamScope } from "@/server/tenancy/scope";
import { failed, traced } from "@/server/telemetry/spans";
import { readBounded } from "./bounded-read";
import type { Context } from "./context";
import { appCodeOf, fieldErrorsOf, retryAfterOf, toTrpcError } from "./errors";

export interface Meta {
  /** Set by teamProcedure/projectProcedure: the table entry the role is checked against. */
  permission?: Permission;
  /** A query with per-account windows of its own (src/server/ratelimit/dashboard-limits.ts). */
  counts?: DashboardCall["counts"];
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error, ctx }) {
      // A 500 that never reached mapErrors (createContext failing, say) still carries the thrown
      // message: the browser gets the catalogue's, the log gets the cause (src/server/http/trpc-route.ts).
      const message = error.code === "INTERNAL_SERVER_ERROR" ? errorCatalogue.INTERNAL.message : shape.message;
      return {
        ...shape,
        message,
        data: {
          ...shape.data,
          stack: undefined,
          appCode: appCodeOf(error),
          fieldErrors: fieldErrorsOf(error),
          retryAfter: retryAfterOf(error),
          requestId: ctx?.requestId ?? null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure in a span named by its path; a refusal marks it failed with the catalogue's code. */
const mapErrors = t.middleware(({ next, path, type }) =>
  traced(`trpc ${path}`, { "rpc.system": "trpc", "rpc.method": path, "optstuff.trpc.type": type }, async (span) => {
    const result = await next();
    if (result.ok) return result;
    const error = toTrpcError(result.error);
    if (span) failed(span, error.cause instanceof AppError ? error.cause : error);
    throw error;
  }),
);

export const publicProcedure = t.procedure.use(mapErrors);

/**
 * Signed in, and within the account's windows (dashboard-limits.ts): every mutation counts as a change,
 * a purge also in windows of its own, and a slug check (a query) in its own. Asked before the
 * procedure's own lookups, so a refused call costs one round of limiter calls (none while the refusal
 * is remembered).
 */
export const protectedProcedure = publicProcedure.use(async ({ ctx, type, meta, next }) => {
  if (!ctx.user) throw new AppError("UNAUTHENTICATED");
  const limits = limitsFor({ type, permission: meta?.permission, counts: meta?.counts });
  await ctx.services.admission.admit(limits, ctx.user.id);
  return next({ ctx: { user: ctx.user } });
});

/** Path segments are looked up, not validated: an unknown slug is simply not found. */
const pathSlug = z.string().min(1).max(100);

/**
 * The team comes from the path (its slug) and the role from the session user's membership, never
 * from input. A non-member gets NOT_FOUND, as if the team did not exist.
 */
export function teamProcedure(permission: Permission) {
  return protectedProcedure
    .meta({ permission })
    .input(z.object({ teamSlug: pathSlug }))
    .use(async ({ ctx, input, next }) => {
      const membership = await teamScope(ctx.services.tenancy, ctx.user, input.teamSlug, permission);
      return next({ ctx: { team: membership.team, role: membership.role } });
    });
}

export function projectProcedure(permission: Permission) {
  return teamProcedure(permission)
    .input(z.object({ projectSlug: pathSlug }))
    .use(async ({ ctx, input, next }) => {
      const project = await projectInTeam(ctx.services.tenancy, ctx.team.id, input.projectSlug);
      return next({ ctx: { project, scope: { teamId: ctx.team.id, projectId: project.id } } });
    });
}

/**
 * A read of logs or statistics (bounded-read.ts), once its scope is resolved: counted in a window of
 * its own, and given `ctx.reads`, the database it reads on. The procedure's result is thrown when it
 * failed, so that the read's transaction sees its own time limit and says so.
 */
const boundedRead = t.middleware(async ({ ctx, next, signal }) => {
  const account = (ctx as { user?: { id: string } }).user!.id;
  return readBounded(ctx.services, account, signal, async (reads) => {
    const result = await next({ ctx: { reads } });
    if (!result.ok) throw result.error;
    return result;
  });
});

/** A team's logs or statistics. */
export const teamReadProcedure = (permission: Permission) =>
  teamProcedure(permission).meta({ counts: "heavyRead" }).use(boundedRead);

/** A project's logs or statistics. */
export const projectReadProcedure = (permission: Permission) =>
  projectProcedure(permission).meta({ counts: "heavyRead" }).use(boundedRead);

/** The instance owner's logs (the instance's audit log). */
export const instanceReadProcedure = protectedProcedure
  .use(async ({ ctx, next }) => {
    assertSecondFactor(ctx.services.tenancy, ctx.user, null);
    await assertInstanceOwner(ctx.tenancy, ctx.user.id);
    return next();
  })
  .meta({ counts: "heavyRead" })
  .use(boundedRead);

export { TRPCError };
