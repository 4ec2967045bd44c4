"use client";

import type { ImageInfo } from "@optstuff/client";
import { Columns2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorMessage } from "@/components/ui/feedback";
import { formatBytes, formatPercent } from "@/lib/format";
import { requestAnswer, type Answer } from "./url-answer";

type Compared =
  | { phase: "idle" }
  | { phase: "loading" }
  | { phase: "shown"; info: ImageInfo; imageUrl: string | null }
  | { phase: "failed"; message: string };

const fetchAnswer = (url: string) =>
  requestAnswer(url, { fetch: (input, init) => fetch(input, init), now: () => performance.now() });

const failure = (answer: Answer) =>
  answer.kind === "error"
    ? `${answer.message} (${answer.code})`
    : answer.kind === "unreachable"
      ? answer.message
      : `The server answered ${answer.status}`;

/**
 * The "before" beside the tester's answer: the source's own facts (`info`: its format, size and
 * bytes as the origin sent it) and its image with no operations (`_`: still at the project's default
 * quality and with an always-on watermark, as any URL of it), both through signed URLs of the same
 * key, so what is shown is what the image API sees. Two more image requests, logged and metered.
 */
export function OriginalCompare({
  sign,
  outputBytes,
}: {
  /** Signs the tester's source and key with other operations. */
  sign(operations: string): Promise<string>;
  outputBytes: number;
}) {
  const [compared, setCompared] = useState<Compared>({ phase: "idle" });
  const imageUrl = compared.phase === "shown" ? compared.imageUrl : null;
  useEffect(() => () => (imageUrl ? URL.revokeObjectURL(imageUrl) : undefined), [imageUrl]);
  // A new signed URL replaces this component: an answer arriving after that makes no object URL.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  async function compare() {
    setCompared({ phase: "loading" });
    try {
      const [infoUrl, plainUrl] = await Promise.all([sign("info"), sign("_")]);
      const [info, plain] = await Promise.all([fetchAnswer(infoUrl), fetchAnswer(plainUrl)]);
      if (!mounted.current) return;
      if (info.kind !== "json") return setCompared({ phase: "failed", message: failure(info) });
      setCompared({
        phase: "shown",
        info: info.json as ImageInfo,
        imageUrl: plain.kind === "image" ? URL.createObjectURL(plain.body) : null,
      });
    } catch (error) {
      if (!mounted.current) return;
      setCompared({ phase: "failed", message: (error as { message?: string }).message ?? "The comparison failed" });
    }
  }

  if (compared.phase !== "shown")
    return (
      <div className="space-y-2">
        <Button variant="secondary" icon={Columns2} pending={compared.phase === "loading"} onClick={compare}>
          Compare with the original
        </Button>
        <ErrorMessage error={compared.phase === "failed" ? compared : null} />
      </div>
    );
  const { info } = compared;
  const share = outputBytes / info.bytes;
  return (
    <figure className="space-y-1" data-testid="original">
      {compared.imageUrl ? (
        // eslint-disable-next-line @next/next/no-img-element -- bytes already read, from an object URL
        <img
          src={compared.imageUrl}
          alt="The source with no operations"
          className="max-h-64 max-w-full rounded-md border border-line"
        />
      ) : null}
      <figcaption className="text-sm">
        <span className="font-medium">Original:</span>{" "}
        <span data-testid="original-facts">
          {info.format.toUpperCase()} {info.width} × {info.height}, {formatBytes(info.bytes)}
        </span>
        <span className="block text-xs text-muted" data-testid="original-share">
          The answer above is {formatPercent(share, share < 0.1 ? 1 : 0)} of the original&apos;s bytes. The picture is
          the source with no operations (the project&apos;s default quality and watermark still apply).
        </span>
      </figcaption>
    </figure>
  );
}
