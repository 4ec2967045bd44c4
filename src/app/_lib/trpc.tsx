// Dashboard data on the server first: layouts and pages fetch what their client components ask for,
// through the same procedures (no HTTP hop), and hand it over dehydrated, so the first paint has it.
import "server-only";
import { dehydrate, HydrationBoundary, type FetchQueryOptions, type QueryKey } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { TRPCError } from "@trpc/server";
import { notFound, redirect } from "next/navigation";
import { cache, type ReactNode } from "react";
import { makeQueryClient } from "@/lib/trpc/query-client";
import { createContext } from "@/server/api/context";
import { AppError } from "@/server/errors";
import { appRouter, createCaller } from "@/server/api/root";
import { dashboardServices } from "@/server/http/trpc-route";
import { getServices } from "@/server/services";
import { currentUser } from "./session";

/** One query client per request, shared by its layouts and page. */
const getQueryClient = cache(() => makeQueryClient({ server: true }));

const contextForRequest = cache(async () => createContext(dashboardServices(await getServices()), await currentUser()));

export const trpc = createTRPCOptionsProxy({ ctx: contextForRequest, router: appRouter, queryClient: getQueryClient });

/** The procedures, called directly: for a page that only decides where to go, with nothing to hydrate. */
export const procedures = cache(async () => createCaller(await contextForRequest()));

/** Fetches a query into the request's cache; a failure is left for the client component to show. */
export function prefetch<TData, TError, TKey extends QueryKey>(
  query: FetchQueryOptions<TData, TError, TData, TKey>,
): Promise<void> {
  return getQueryClient().prefetchQuery(query);
}

/**
 * The team or project a URL names, or the not-found page: a slug that does not exist, one the user is
 * not a member of and one that is not a slug at all look the same. A session that ended meanwhile goes
 * to sign-in and back to `returnTo` (layouts render in parallel: each guards itself).
 */
export async function fetchOrNotFound<TData, TError, TKey extends QueryKey>(
  query: FetchQueryOptions<TData, TError, TData, TKey>,
  returnTo: string,
): Promise<TData> {
  try {
    return await getQueryClient().fetchQuery(query);
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    if (error.code === "UNAUTHORIZED") redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
    // The team (or the instance) requires a second factor this account has not set up yet.
    if (error.cause instanceof AppError && error.cause.code === "SECOND_FACTOR_REQUIRED")
      redirect(`/account?required=${encodeURIComponent(returnTo)}`);
    if (error.code === "NOT_FOUND" || error.code === "FORBIDDEN" || error.code === "BAD_REQUEST") notFound();
    throw error;
  }
}

/** Hands what this request fetched so far to the client components below. */
export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
