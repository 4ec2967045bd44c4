"use client";

import { useQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, EmptyState, ErrorMessage, Loading } from "@/components/ui/feedback";
import { useTRPC } from "@/lib/trpc/client";
import { CreateKeyDialog } from "./create-key-dialog";
import { When } from "@/components/ui/when";
import { policyRefusals } from "@/lib/key-policy-summary";
import { EditKeyDialog, RevokeKeyButton, type DefaultKeyLimits } from "./key-actions";
import { KeyPolicyDialog } from "./key-policy-dialog";
import { RotateKeyDialog } from "./rotate-key-dialog";
import { SpendCapSummary } from "./spend-cap-summary";
import { cn } from "@/lib/cn";

const statusStyle = {
  active: "bg-ok-soft text-ok",
  rotating: "bg-warning-soft text-warning",
  expired: "bg-line text-ink-soft",
  revoked: "bg-danger-soft text-danger",
} as const;

export function ApiKeys({
  teamSlug,
  projectSlug,
  defaultLimits,
}: {
  teamSlug: string;
  projectSlug: string;
  defaultLimits: DefaultKeyLimits;
}) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const keys = useQuery(trpc.apiKey.list.queryOptions({ teamSlug, projectSlug }));
  const can = team.data?.can;
  const [creating, setCreating] = useState(false);
  return (
    <Card
      title="API keys"
      actions={
        can?.["apiKey.create"] ? (
          <CreateKeyDialog teamSlug={teamSlug} projectSlug={projectSlug} open={creating} setOpen={setCreating} />
        ) : null
      }
    >
      {keys.isPending ? <Loading /> : null}
      <ErrorMessage error={keys.error} />
      {keys.data?.length === 0 ? (
        <EmptyState title="No keys yet">
          <p>A key signs this project&apos;s image URLs.</p>
          {can?.["apiKey.create"] ? (
            <div className="mt-3">
              <Button icon={Plus} onClick={() => setCreating(true)}>
                Create the first key
              </Button>
            </div>
          ) : (
            <p>Ask an admin of the team to create one.</p>
          )}
        </EmptyState>
      ) : null}
      <ul className="divide-y divide-line-faint">
        {keys.data?.map((key) => (
          <li key={key.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center" data-testid="api-key-row">
            <div className="min-w-0 flex-1">
              <p className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{key.name}</span>
                <span className={cn("rounded-full px-2 py-0.5 text-xs", statusStyle[key.status])}>{key.status}</span>
              </p>
              <p className="truncate font-mono text-xs text-muted">{key.publicKey}</p>
              <p className="text-xs text-subtle">
                Last used {key.lastUsedAt ? <When at={key.lastUsedAt} /> : "never"} · Expires{" "}
                {key.expiresAt ? <When at={key.expiresAt} /> : "never"} · {key.limits.perMinute.toLocaleString("en")}{" "}
                transforms/min, {key.limits.perDay.toLocaleString("en")}/day
              </p>
              <SpendCapSummary uses={key.capUses ?? []} reached={key.capReached} />
              {key.policy ? (
                <p className="text-xs text-subtle" data-testid="key-policy">
                  Policy refuses: {policyRefusals(key.policy).join("; ")}
                </p>
              ) : null}
            </div>
            <div className="flex flex-wrap gap-1">
              {key.status === "active" && can?.["apiKey.update"] ? (
                <EditKeyDialog
                  teamSlug={teamSlug}
                  projectSlug={projectSlug}
                  apiKey={key}
                  defaultLimits={defaultLimits}
                />
              ) : null}
              {key.status === "active" && can?.["apiKey.update"] ? (
                <KeyPolicyDialog teamSlug={teamSlug} projectSlug={projectSlug} apiKey={key} />
              ) : null}
              {/* Mounted whatever the key's status becomes (rotating, expired without grace, revoked from
                  elsewhere): its dialog shows the new secret until closed, while the list behind it changes. */}
              {can?.["apiKey.rotate"] ? (
                <RotateKeyDialog
                  teamSlug={teamSlug}
                  projectSlug={projectSlug}
                  apiKey={key}
                  offered={key.status === "active"}
                />
              ) : null}
              {can?.["apiKey.revoke"] && (key.status === "active" || key.status === "rotating") ? (
                <RevokeKeyButton teamSlug={teamSlug} projectSlug={projectSlug} apiKey={key} />
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
