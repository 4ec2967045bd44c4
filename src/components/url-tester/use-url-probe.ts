import { useCallback, useEffect, useRef, useState } from "react";
import { requestAnswer, type Answer, type Preview } from "./url-answer";

export type Probe =
  | { phase: "idle" }
  | { phase: "requesting" }
  | { phase: "answered"; answer: Answer; previewUrl: string | null; preview: Preview };

/**
 * Requests a signed URL and keeps what it answered. A newer request aborts the one before it, so an old
 * answer never lands over a new one; the preview's object URL is released with the answer it shows.
 */
export function useUrlProbe() {
  const [probe, setProbe] = useState<Probe>({ phase: "idle" });
  const inFlight = useRef<AbortController | null>(null);
  const objectUrl = useRef<string | null>(null);

  const release = useCallback(() => {
    inFlight.current?.abort();
    inFlight.current = null;
    if (objectUrl.current) URL.revokeObjectURL(objectUrl.current);
    objectUrl.current = null;
  }, []);

  const reset = useCallback(() => {
    release();
    setProbe({ phase: "idle" });
  }, [release]);

  const run = useCallback(
    async (signedUrl: string) => {
      release();
      const controller = new AbortController();
      inFlight.current = controller;
      setProbe({ phase: "requesting" });
      let answer: Answer;
      try {
        answer = await requestAnswer(signedUrl, {
          // Called as a plain function: a browser's fetch refuses to run with another object as `this`.
          fetch: (input, init) => fetch(input, init),
          now: () => performance.now(),
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.signal.aborted) return; // a newer request took over
        throw error;
      }
      inFlight.current = null;
      const previewUrl = answer.kind === "image" ? URL.createObjectURL(answer.body) : null;
      objectUrl.current = previewUrl;
      setProbe({ phase: "answered", answer, previewUrl, preview: { state: "pending" } });
    },
    [release],
  );

  const showPreview = useCallback(
    (preview: Preview) => setProbe((current) => (current.phase === "answered" ? { ...current, preview } : current)),
    [],
  );

  useEffect(() => release, [release]);
  return { probe, run, reset, showPreview };
}
