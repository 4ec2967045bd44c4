export type {
  BucketSettings,
  FetchedSource,
  FetchLimits,
  NetDeps,
  ResolvedAddress,
  SourceFetcher,
  SourceLocation,
} from "./types";
export { parseSource } from "./parse-source";
export {
  assertSourceAllowed,
  isRefererAllowed,
  isSourceAllowed,
  redirectsWithin,
  normaliseHostEntry,
  type HostEntry,
} from "./allowlist";
export {
  classifyAddress,
  forbiddenRanges,
  isForbiddenHostname,
  type AddressVerdict,
  type ForbiddenRange,
} from "./ip-policy";
export { createSourceFetcher, type SourceFetcherOptions } from "./safe-fetch";
export { SOURCE_REQUEST_HEADERS } from "./http-exchange";
