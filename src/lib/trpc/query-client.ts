import { QueryClient, type MutationCache } from "@tanstack/react-query";
import superjson from "superjson";

/**
 * One factory for the browser's client and the server's per-request one. What the server fetched
 * crosses to the browser dehydrated with superjson (dates stay dates), so the page renders with it.
 */
export function makeQueryClient({
  server = false,
  mutationCache,
}: { server?: boolean; mutationCache?: MutationCache } = {}): QueryClient {
  return new QueryClient({
    mutationCache,
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // The server calls the procedures in process: a failure there is an answer, not a network
        // blip. In the browser a refusal (not found, forbidden, invalid) will not change by asking again.
        retry: server
          ? false
          : (count, error) =>
              count < 2 && !/^(4\d\d)$/.test(String((error as { data?: { httpStatus?: number } }).data?.httpStatus)),
      },
      // Only finished queries cross: layouts and pages await what they prefetch, and a layout rendering
      // while its page's query is still pending must not stream that promise (its rejection would be a
      // server error; the page hands over the settled query itself).
      dehydrate: { serializeData: superjson.serialize },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
