import type { Answered, DeliveryDeps } from "./delivery-types";
import type { Produced } from "./produce";

/** An output over the deployment's response cap goes out as a redirect to the bucket (oversize.ts). */
export async function capped(
  answered: Answered,
  produced: Produced,
  at: { key: string; team: string; maxSeconds: number },
  deps: Pick<DeliveryDeps, "oversize">,
): Promise<Answered> {
  const redirect = await deps.oversize?.({
    ...at,
    result: produced.result,
    stored: produced.cache === "store",
    written: produced.written,
    headers: answered.answer.headers,
  });
  if (!redirect) return answered;
  return {
    answer: { status: redirect.status, headers: redirect.headers, body: null },
    report: { ...answered.report, sentBytes: 0 },
  };
}
