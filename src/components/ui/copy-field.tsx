"use client";

import { Copy } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Button } from "./button";
import { cn } from "@/lib/cn";

/**
 * Read-only text with a copy button; multi-line values keep their line breaks. A line wider than the
 * box scrolls sideways, unless `wrap`: then it breaks anywhere and every character is on screen.
 */
export function CopyField({
  label,
  value,
  multiline = false,
  wrap = false,
  onCopied,
}: {
  label: string;
  value: string;
  multiline?: boolean;
  /** For what must be read whole where it is shown (a secret shown once): no part hidden past the edge. */
  wrap?: boolean;
  /** Called once the clipboard holds the value (not when the browser refused to write it). */
  onCopied?: () => void;
}) {
  const [said, setSaid] = useState<"Copied" | "Copy failed: select the text" | null>(null);
  const clear = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(clear.current), []);
  async function copy() {
    const written = await (navigator.clipboard?.writeText(value) ?? Promise.reject(new Error("no clipboard"))).then(
      () => true,
      () => false,
    );
    setSaid(written ? "Copied" : "Copy failed: select the text");
    if (written) onCopied?.();
    clearTimeout(clear.current);
    clear.current = setTimeout(() => setSaid(null), 2000);
  }
  return (
    <div className="space-y-1">
      <div className="flex items-center justify-between gap-2">
        <span className="text-sm font-medium">{label}</span>
        <span className="flex items-center gap-2">
          {/* Announced: the button keeps its name, the outcome is said here. */}
          <span aria-live="polite" className="text-xs text-muted">
            {said}
          </span>
          <Button variant="ghost" size="sm" icon={Copy} onClick={copy}>
            Copy<span className="sr-only"> {label}</span>
          </Button>
        </span>
      </div>
      {/* Focusable: a line wider than the box scrolls, and a keyboard must be able to scroll it. */}
      <pre
        tabIndex={0}
        aria-label={label}
        data-testid={`copy-${label}`}
        className={cn(
          "rounded-md bg-ink p-3 font-mono text-xs text-on-solid",
          wrap
            ? "whitespace-pre-wrap break-all"
            : cn("overflow-x-auto", multiline ? "whitespace-pre" : "whitespace-nowrap"),
        )}
      >
        {value}
      </pre>
    </div>
  );
}
