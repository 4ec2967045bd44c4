"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { TextAreaField } from "@/components/ui/field";
import { captionOf, withCaption } from "@/lib/caption-token";

/**
 * A caption typed as text and written into an operations field as txt_ (the URL carries it as
 * base64url, which nobody types), with the caption the field now draws read back in words.
 */
export function CaptionField({ operations, onChange }: { operations: string; onChange(next: string): void }) {
  const drawn = captionOf(operations);
  const [text, setText] = useState(drawn ?? "");
  const [error, setError] = useState<string | null>(null);
  const put = (next: string | null) => {
    try {
      onChange(withCaption(operations, next));
      setError(null);
    } catch (refused) {
      setError(
        refused instanceof RangeError ? `The caption ${refused.message.replace(/^text /, "")}` : String(refused),
      );
    }
  };
  return (
    <div className="space-y-2">
      <TextAreaField
        label="Caption"
        rows={2}
        value={text}
        onChange={(event) => setText(event.target.value)}
        error={error}
        hint="Drawn over the image (txt_); style it with txtstyle_: size, colour, gravity, x, y, font, box."
      />
      <p className="text-xs text-subtle" data-testid="caption-drawn">
        {drawn === null ? "The operations draw no caption." : `The operations draw “${drawn}”.`}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="secondary" size="sm" onClick={() => put(text)}>
          Put the caption in the operations
        </Button>
        {drawn !== null ? (
          <Button type="button" variant="ghost" size="sm" onClick={() => put(null)}>
            Remove the caption
          </Button>
        ) : null}
      </div>
    </div>
  );
}
