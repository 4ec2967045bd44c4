import type { ServedImpact } from "@/server/analytics/served-impact";
import { When } from "@/components/ui/when";

/**
 * What recent served images say a rule would refuse (presets only, a key's policy): how many of how
 * many, over which stretch, and the operations most used among the refused.
 */
export function RuleImpact({
  days,
  requests,
  refused,
  examples,
  partial,
  lookedBackTo,
  testId,
}: ServedImpact & { testId: string }) {
  const count = (n: number) => n.toLocaleString();
  return (
    <div data-testid={testId} className="space-y-2">
      <p className={refused > 0 ? "font-medium text-danger" : "text-ink-soft"}>
        {requests === 0
          ? lookedBackTo
            ? "None of the latest images delivered to judge by."
            : `No images delivered in the last ${days} days to judge by.`
          : lookedBackTo
            ? `${partial ? "At least " : ""}${count(refused)} of the latest ${count(requests)} images delivered would have been refused.`
            : `${partial ? "At least " : ""}${count(refused)} of the ${count(requests)} images delivered in the last ${days} days would have been refused.`}
      </p>
      {lookedBackTo ? (
        <p className="text-muted">
          Judged on the images delivered since <When at={lookedBackTo} />: a sample of the last {days} days.
        </p>
      ) : null}
      {examples.length > 0 ? (
        <>
          <p className="text-muted">Most used of their operations:</p>
          <ul className="space-y-1">
            {examples.map((segment) => (
              <li key={segment}>
                <code className="font-mono text-xs break-all">{segment}</code>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
