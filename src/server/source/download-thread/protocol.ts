import type { WireError } from "@/server/errors";
import type { FetchLimits } from "../types";

/** A remote source to download into `file`, with the project's source policy asked at every redirect. */
export interface DownloadRequest {
  url: string;
  /** The project's allowed source hosts; undefined asks no policy at redirects. */
  sourceHosts: readonly string[] | undefined;
  conditional?: { ifNoneMatch?: string; ifModifiedSince?: string };
}

/** What the download learnt; the bytes are in the file (nothing is written for a 304), and in `bytes`. */
export interface Downloaded {
  size: number;
  /** The file's content, handed over from the thread without a copy; absent for a 304. */
  bytes?: Buffer;
  finalUrl: string;
  response?: { status: number; headers: Record<string, string | string[] | undefined> };
  notModified?: boolean;
}

export interface DownloadMessage extends DownloadRequest {
  id: number;
  file: string;
}

export type DownloadReply =
  | { id: number; ok: true; downloaded: Omit<Downloaded, "bytes">; bytes?: Uint8Array<ArrayBuffer> }
  | { id: number; ok: false; error: WireError };

/** The thread's workerData. */
export interface DownloadThreadSettings {
  limits: FetchLimits;
}
