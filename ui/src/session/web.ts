// What a WebFetch or WebSearch call did, folded from its typed progress
// (`web_hop`, `web_response`, `web_search_results`); the renderers read
// this, never the result's text.

import type { SearchResult, ToolProgressData, WebHop } from "../generated/protocol";

/** The final response of a WebFetch. */
export interface WebResponse {
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly bytes: number;
  readonly truncated: boolean;
  readonly fromCache: boolean;
}

/** A WebSearch's results. */
export interface WebSearch {
  readonly provider: string;
  readonly results: readonly SearchResult[];
  readonly filteredOut: number;
}

/** Everything the web tools reported for one call. */
export interface WebActivity {
  readonly hops: readonly WebHop[];
  readonly response: WebResponse | null;
  readonly search: WebSearch | null;
}

const EMPTY: WebActivity = { hops: [], response: null, search: null };

/** Hops kept per call (a fetch follows at most 10 redirects). */
const KEPT_HOPS = 32;

type WebProgress = Extract<ToolProgressData, { kind: "web_hop" | "web_response" | "web_search_results" }>;

/** `web` after one more web progress payload. */
export function foldWeb(web: WebActivity | null, data: WebProgress): WebActivity {
  const current = web ?? EMPTY;
  switch (data.kind) {
    case "web_hop":
      return { ...current, hops: [...current.hops, data.hop].slice(-KEPT_HOPS) };
    case "web_response":
      return {
        ...current,
        response: {
          finalUrl: data.final_url,
          status: data.status,
          contentType: data.content_type,
          bytes: data.bytes,
          truncated: data.truncated,
          fromCache: data.from_cache,
        },
      };
    case "web_search_results":
      return { ...current, search: { provider: data.provider, results: data.results, filteredOut: data.filtered_out } };
  }
}

/** A byte count for people: 812 B, 14.2 KB, 3.1 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
