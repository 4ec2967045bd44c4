"use client";

import { useState } from "react";
import { Button } from "./button";

/**
 * Newest-first pages walked by cursor (the last id of the page before). The pages walked belong to
 * the filters they were walked under: other filters start again at the newest.
 */
export function useCursorPages(filters: string) {
  const [paging, setPaging] = useState({ filters, cursors: [] as number[] });
  const cursors = paging.filters === filters ? paging.cursors : [];
  return {
    /** The cursor of the page shown; undefined for the newest. */
    before: cursors.at(-1),
    newer: cursors.length > 0 ? () => setPaging({ filters, cursors: cursors.slice(0, -1) }) : null,
    older: (next: number) => setPaging({ filters, cursors: [...cursors, next] }),
  };
}

/**
 * Newer and Older. `next` is the page's cursor to older entries; pass null while a page of other
 * filters is loading (the one shown is a placeholder, and its cursor is not the new filters').
 */
export function Pager({ pages, next }: { pages: ReturnType<typeof useCursorPages>; next: number | null | undefined }) {
  return (
    <div className="flex gap-2">
      <Button variant="secondary" className="min-h-9 px-3" disabled={!pages.newer} onClick={() => pages.newer?.()}>
        Newer
      </Button>
      <Button variant="secondary" className="min-h-9 px-3" disabled={!next} onClick={() => next && pages.older(next)}>
        Older
      </Button>
    </div>
  );
}
