import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

/**
 * One factory for the browser's client and the server's per-request one. What the server fetched
 * crosses to the browser dehydrated with superjson (dates stay dates), so the page renders with it.
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // A refusal (not found, forbidden, invalid) will not change by asking again.
        retry: (count, error) =>
          count < 2 && !/^(4\d\d)$/.test(String((error as { data?: { httpStatus?: number } }).data?.httpStatus)),
      },
      dehydrate: {
        serializeData: superjson.serialize,
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
