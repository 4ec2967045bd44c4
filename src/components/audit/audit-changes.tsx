/** What changed, one line a field: `field: before → after`; long values are cut with the whole in a title. */
export function AuditChanges({ changes }: { changes: Record<string, { from: unknown; to: unknown }> | null }) {
  if (!changes) return <span className="text-subtle">–</span>;
  return (
    <ul className="space-y-0.5 text-xs">
      {Object.entries(changes).map(([field, { from, to }]) => (
        <li key={field} className="break-words">
          <span className="font-medium">{field}</span>: <Value value={from} /> → <Value value={to} />
        </li>
      ))}
    </ul>
  );
}

const CUT = 80;

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-subtle">none</span>;
  const text = Array.isArray(value) ? (value.length ? value.join(", ") : "(empty)") : String(value);
  return (
    <span className="font-mono break-all" title={text.length > CUT ? text : undefined}>
      {text.length > CUT ? `${text.slice(0, CUT)}…` : text}
    </span>
  );
}
