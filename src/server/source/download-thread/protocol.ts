import type { WireError } from "@/server/errors";
import type { FetchLimits } from "../types";

/** A remote source to download into `file`, with the project's source policy asked at every redirect. */
export interface DownloadRequest {
  url: string;
  /** The project's allowed source hosts; undefined asks no policy at redirects. */
  sourceHosts: readonly string[] | undefined;
  conditional?: { ifNoneMatch?: string; ifModifiedSince?: string };
}

/** What the download learnt; the bytes are in the file (nothing is written for a 304). */
export interface Downloaded {
  size: number;
  finalUrl: string;
  response?: { status: number; headers: Record<string, string | string[] | undefined> };
  notModified?: boolean;
}

export interface DownloadMessage extends DownloadRequest {
  id: number;
  file: string;
}

export type DownloadReply =
  { id: number; ok: true; downloaded: Downloaded } | { id: number; ok: false; error: WireError };

/** The thread's workerData. */
export interface DownloadThreadSettings {
  limits: FetchLimits;
}
