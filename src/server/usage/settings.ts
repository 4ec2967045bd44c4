import { decimal, group, integer, type ValuesOf } from "@/server/config/setting";

/** What the request log keeps; the usage statistics count every request whatever these say. */
export const requestLogSettings = group("Request log", {
  OPTSTUFF_REQUEST_LOG_SAMPLE_RATE: decimal({
    default: 1,
    min: 0,
    max: 1,
    doc: "The share of successful image requests written to the request log, 0 to 1.",
  }),
  OPTSTUFF_REQUEST_LOG_FAILURES_PER_MINUTE: integer({
    default: 60,
    min: 0,
    doc: "Failed requests logged per project and minute by all instances together; the rest are only counted.",
  }),
  OPTSTUFF_REQUEST_LOG_SUCCESSES_PER_MINUTE: integer({
    default: 120,
    min: 0,
    doc: "Successful requests logged per project and minute by all instances together, cache hits included.",
  }),
});

export type RequestLogValues = ValuesOf<typeof requestLogSettings>;
