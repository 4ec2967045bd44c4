"use client";

import { useState } from "react";
import { Button } from "./button";
import { cn } from "@/lib/cn";

/** Read-only text with a copy button; multi-line values keep their line breaks. */
export function CopyField({
  label,
  value,
  multiline = false,
  onCopied,
}: {
  label: string;
  value: string;
  multiline?: boolean;
  /** Called once the clipboard holds the value (not when the browser refused to write it). */
  onCopied?: () => void;
}) {
  const [copied, setCopied] = useState<"Copied" | "Copy failed: select the text" | null>(null);
  async function copy() {
    const written = await (navigator.clipboard?.writeText(value) ?? Promise.reject(new Error("no clipboard"))).then(
      () => true,
      () => false,
    );
    setCopied(written ? "Copied" : "Copy failed: select the text");
    if (written) onCopied?.();
    setTimeout(() => setCopied(null), 1500);
  }
  return (
    <div className="space-y-1">
      <div className="flex items-center justify-between gap-2">
        <span className="text-sm font-medium">{label}</span>
        <Button variant="ghost" className="min-h-8 px-2 text-xs" onClick={copy} aria-label={`Copy ${label}`}>
          {copied ?? "Copy"}
        </Button>
      </div>
      <pre
        data-testid={`copy-${label}`}
        className={cn(
          "overflow-x-auto rounded-md bg-neutral-900 p-3 font-mono text-xs text-neutral-100",
          multiline ? "whitespace-pre" : "whitespace-nowrap",
        )}
      >
        {value}
      </pre>
    </div>
  );
}
