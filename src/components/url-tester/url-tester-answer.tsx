import type { ReactNode } from "react";
import { cn } from "@/lib/cn";
import { formatMs } from "@/lib/format";
import { FaceList } from "./face-list";
import { PaletteSwatches } from "./palette-swatches";
import { byteCount, nextStep, pixelSize, statusLine, summarise, type Answer, type Preview } from "./url-answer";
import type { Probe } from "./use-url-probe";

/**
 * What the image route answered to the signed URL: a sentence in a live region, then the facts (status
 * and error code, or format, pixel size, bytes and time), `info`'s JSON and palette, and the image itself.
 */
export function UrlTesterAnswer({
  probe,
  hasRefererList,
  onPreview,
}: {
  probe: Probe;
  hasRefererList: boolean;
  onPreview: (preview: Preview) => void;
}) {
  const answered = probe.phase === "answered" ? probe : null;
  const hint = answered ? nextStep(answered.answer, { hasRefererList }) : null;
  return (
    <div className="space-y-3">
      <p
        className={cn("text-sm", answered?.answer.kind === "unreachable" && "text-danger")}
        role="status"
        aria-live="polite"
        data-testid="preview-status"
      >
        {answered
          ? summarise(answered.answer, answered.preview)
          : probe.phase === "requesting"
            ? "Loading preview…"
            : ""}
      </p>
      {answered ? <Facts answer={answered.answer} preview={answered.preview} /> : null}
      {hint ? <p className="text-xs text-muted">{hint}</p> : null}
      {answered?.answer.kind === "json" ? (
        <pre
          tabIndex={0}
          aria-label="Answer (JSON)"
          data-testid="answer-json"
          className="max-h-80 overflow-auto rounded-md bg-ink p-3 font-mono text-xs text-on-solid"
        >
          {JSON.stringify(answered.answer.json, null, 2)}
        </pre>
      ) : null}
      {answered?.answer.kind === "json" ? <PaletteSwatches json={answered.answer.json} /> : null}
      {answered?.answer.kind === "json" ? <FaceList json={answered.answer.json} /> : null}
      {answered?.previewUrl ? (
        // The bytes already read, from an object URL: an <img> of the signed URL would ask the server
        // again, and next/image would go through Next's own optimizer instead of the route.
        // eslint-disable-next-line @next/next/no-img-element
        <img
          key={answered.previewUrl}
          src={answered.previewUrl}
          alt="Preview of the signed URL's image"
          data-testid="preview-image"
          hidden={answered.preview.state === "undecodable"}
          className="max-h-96 max-w-full rounded-md border border-line"
          onLoad={(event) =>
            onPreview({
              state: "shown",
              width: event.currentTarget.naturalWidth,
              height: event.currentTarget.naturalHeight,
            })
          }
          onError={() => onPreview({ state: "undecodable" })}
        />
      ) : null}
    </div>
  );
}

function Facts({ answer, preview }: { answer: Answer; preview: Preview }) {
  if (answer.kind === "unreachable") return null;
  const refused = answer.kind === "error" || answer.status >= 400;
  return (
    <dl
      aria-label="The server's answer"
      className={cn(
        "grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 rounded-md border p-3 text-sm",
        refused ? "border-danger-line bg-danger-soft" : "border-line",
      )}
    >
      <Fact name="Status">{statusLine(answer)}</Fact>
      {answer.kind === "error" ? (
        <>
          <Fact name="Code">{answer.code}</Fact>
          <Fact name="Message">{answer.message}</Fact>
        </>
      ) : (
        <>
          <Fact name="Format">{answer.contentType || "none given"}</Fact>
          {preview.state === "shown" ? <Fact name="Pixel size">{pixelSize(preview)}</Fact> : null}
          <Fact name="Bytes">{byteCount(answer.bytes)}</Fact>
        </>
      )}
      {answer.kind === "image" && answer.fallbackFor ? <Fact name="Fallback for">{answer.fallbackFor}</Fact> : null}
      <Fact name="Time">{formatMs(answer.ms)}</Fact>
      {answer.requestId ? <Fact name="Request id">{answer.requestId}</Fact> : null}
      {answer.kind === "other" && answer.excerpt ? <Fact name="Body">{answer.excerpt}</Fact> : null}
    </dl>
  );
}

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-subtle">{name}</dt>
      <dd className="min-w-0 break-words" data-testid={`answer-${name.toLowerCase().replace(/\s+/g, "-")}`}>
        {children}
      </dd>
    </>
  );
}
