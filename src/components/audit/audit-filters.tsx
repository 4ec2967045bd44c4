"use client";

import { DateInput } from "@/components/ui/date-input";
import { Select } from "@/components/ui/select";
import { auditActions, auditTargetTypes, type AuditAction, type AuditTargetType } from "@/lib/audit-actions";

/** The filters as typed: empty strings mean "any". */
export interface AuditFilterState {
  actor: string;
  action: AuditAction | "";
  targetType: AuditTargetType | "";
  target: string;
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilterState = { actor: "", action: "", targetType: "", target: "", from: "", to: "" };

const TARGET_NAMES: Record<AuditTargetType, string> = {
  team: "Team",
  member: "Member",
  invitation: "Invitation",
  project: "Project",
  api_key: "API key",
  preset: "Preset",
  image: "Project image",
  bucket: "Bucket",
  cache: "Cache",
  webhook: "Webhook",
  audit_stream: "Audit stream",
  account: "Account",
  instance: "Instance",
};
export const targetName = (type: string) => TARGET_NAMES[type as AuditTargetType] ?? type;

/** Actor, action, target and UTC days; each change asks the server again from the newest entry. */
export function AuditFilters({
  value,
  onChange,
  actors,
  instance,
}: {
  value: AuditFilterState;
  onChange(next: AuditFilterState): void;
  actors: ReadonlyArray<{ id: string; label: string }>;
  instance: boolean;
}) {
  const set = <K extends keyof AuditFilterState>(key: K, v: AuditFilterState[K]) => onChange({ ...value, [key]: v });
  const today = new Date().toISOString().slice(0, 10);
  // A team's log holds the team's actions; the instance's log the instance's.
  const actions = (Object.keys(auditActions) as AuditAction[]).filter(
    (a) => "instance" in auditActions[a] === instance,
  );
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-2 text-sm">
      <label className="flex flex-col gap-1">
        <span className="text-xs text-muted">Who</span>
        <Select size="sm" value={value.actor} onChange={(e) => set("actor", e.target.value)}>
          <option value="">Anyone</option>
          {actors.map((a) => (
            <option key={a.id} value={a.id}>
              {a.label}
            </option>
          ))}
        </Select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-muted">Action</span>
        <Select size="sm" value={value.action} onChange={(e) => set("action", e.target.value as AuditAction | "")}>
          <option value="">Any</option>
          {actions.map((a) => (
            <option key={a} value={a}>
              {auditActions[a].says}
            </option>
          ))}
        </Select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-muted">Target</span>
        <Select
          size="sm"
          value={value.targetType}
          onChange={(e) => set("targetType", e.target.value as AuditTargetType | "")}
        >
          <option value="">Any kind</option>
          {auditTargetTypes.map((t) => (
            <option key={t} value={t}>
              {targetName(t)}
            </option>
          ))}
        </Select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-muted">Target name contains</span>
        <input
          type="search"
          value={value.target}
          maxLength={200}
          onChange={(e) => set("target", e.target.value)}
          placeholder="a key, project, e-mail…"
          className="w-48 rounded-md border border-line-strong bg-surface px-2 py-1.5 text-xs"
        />
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-muted">From (UTC)</span>
        <DateInput max={today} value={value.from} onChange={(e) => set("from", e.target.value)} />
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-muted">To (UTC)</span>
        <DateInput max={today} value={value.to} onChange={(e) => set("to", e.target.value)} />
      </label>
    </div>
  );
}
