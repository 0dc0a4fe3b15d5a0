// The session browser's state and actions: one hook per panel, each the
// only place that talks to the backend for it. Components render what these
// return and call their actions; the logic of filters, snippets and plots is
// in readerModel.ts, snippet.ts and plots.ts.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { backend, onEvent, subscribeStoredSessions } from "../client";
import type {
  ClaudeDiscovery,
  Event,
  ExportFormat,
  ExportResult,
  ImportFileResult,
  ImportProgress,
  ListSessionsArgs,
  SearchHit,
  SessionFacets,
  SessionStats,
  SessionSummary,
  StorageInfo,
  StoredEvents,
} from "../generated/protocol";
import { foldEvents, type SessionModel } from "../session/model";
import { plural } from "../format";
import { compactionNote, usageAfter } from "./compaction";
import { pruned, toggled, toggledAll } from "./selection";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Milliseconds in a day. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** The list's filters and order, as the filter bar edits them. */
export interface ListQuery {
  project: string | null;
  model: string | null;
  /** Sessions started on or after this day (`YYYY-MM-DD`, local time). */
  from: string;
  /** Sessions started on or before this day (`YYYY-MM-DD`, local time). */
  to: string;
  hadDenials: boolean;
  hadErrors: boolean;
  origin: "all" | "gatehouse" | "claude_code";
  sort: NonNullable<ListSessionsArgs["sort"]>;
  ascending: boolean;
}

export const DEFAULT_QUERY: ListQuery = {
  project: null,
  model: null,
  from: "",
  to: "",
  hadDenials: false,
  hadErrors: false,
  origin: "all",
  sort: "updated",
  ascending: false,
};

/** How many sessions the list shows at most. */
export const LIST_LIMIT = 500;

/** The backend's arguments for a list query (days are local-time midnights). */
export function listArgs(query: ListQuery): ListSessionsArgs {
  const day = (text: string) => (text ? new Date(`${text}T00:00:00`).getTime() : null);
  const from = day(query.from);
  const to = day(query.to);
  const args: ListSessionsArgs = {
    project_path: query.project,
    limit: LIST_LIMIT,
    sort: query.sort,
    ascending: query.ascending,
  };
  if (query.model !== null) args.model = query.model;
  if (from !== null && !Number.isNaN(from)) args.since_ms = from;
  if (to !== null && !Number.isNaN(to)) args.until_ms = to + DAY_MS;
  if (query.hadDenials) args.had_denials = true;
  if (query.hadErrors) args.had_errors = true;
  if (query.origin !== "all") args.origin = query.origin;
  return args;
}

export interface SessionListState {
  query: ListQuery;
  sessions: SessionSummary[] | null;
  facets: SessionFacets;
  error: string | null;
  /** Sessions ticked for a selection action (kept to the listed ones). */
  selected: ReadonlySet<string>;
}

export interface SessionListActions {
  setQuery(change: Partial<ListQuery>): void;
  refresh(): void;
  remove(ids: string[]): Promise<void>;
  toggleSelected(id: string): void;
  /** Ticks every listed session, or none when all were ticked. */
  toggleAll(): void;
  clearSelection(): void;
}

/** The sessions list: filters, sort, the sessions, deletion. */
export function useSessionList(): [SessionListState, SessionListActions] {
  const [query, setQueryState] = useState<ListQuery>(DEFAULT_QUERY);
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [facets, setFacets] = useState<SessionFacets>({ projects: [], models: [] });
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [selectedIds, setSelected] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    let cancelled = false;
    Promise.all([backend.browseSessions(listArgs(query)), backend.sessionFacets()]).then(
      ([list, f]) => {
        if (cancelled) return;
        setSessions(list);
        setSelected((ids) => pruned(ids, list.map((s) => s.id)));
        setFacets(f);
        setError(null);
      },
      (err: unknown) => !cancelled && setError(message(err)),
    );
    return () => {
      cancelled = true;
    };
  }, [query, generation]);

  const refresh = useCallback(() => setGeneration((g) => g + 1), []);
  // Sessions written meanwhile (a guarded Claude Code's, a CLI run's, the
  // app's own) appear and update in the list without a manual refresh.
  useEffect(() => subscribeStoredSessions(refresh), [refresh]);
  const listed = (sessions ?? []).map((s) => s.id);
  return [
    { query, sessions, facets, error, selected: selectedIds },
    {
      setQuery: (change) => setQueryState((q) => ({ ...q, ...change })),
      refresh,
      toggleSelected: (id) => setSelected((ids) => toggled(ids, id)),
      toggleAll: () => setSelected((ids) => toggledAll(ids, listed)),
      clearSelection: () => setSelected(new Set()),
      remove: async (ids) => {
        try {
          await backend.deleteSessions(ids);
          setSelected((kept) => pruned(kept, listed.filter((id) => !ids.includes(id))));
          refresh();
        } catch (err) {
          setError(message(err));
        }
      },
    },
  ];
}

export interface SearchState {
  text: string;
  /** null: no search run (the list shows instead). */
  hits: SearchHit[] | null;
  searching: boolean;
  error: string | null;
}

export interface SearchActions {
  setText(text: string): void;
  run(): Promise<void>;
  clear(): void;
}

/** How many hits a search returns at most. */
export const SEARCH_LIMIT = 100;

/** Full-text search over every stored session (plain words, all must match). */
export function useSearch(): [SearchState, SearchActions] {
  const [text, setText] = useState("");
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return [
    { text, hits, searching, error },
    {
      setText,
      run: async () => {
        if (text.trim() === "") {
          setHits(null);
          return;
        }
        setSearching(true);
        try {
          setHits(await backend.searchSessions({ query: text, literal: true, limit: SEARCH_LIMIT }));
          setError(null);
        } catch (err) {
          setError(message(err));
        } finally {
          setSearching(false);
        }
      },
      clear: () => {
        setText("");
        setHits(null);
        setError(null);
      },
    },
  ];
}

/**
 * How many of a session's first events the reader shows before the rest
 * has arrived: a long session's first screen must not wait for all of it.
 */
export const READER_HEAD_EVENTS = 2_000;

export interface ReaderState {
  summary: SessionSummary | null;
  /** The events loaded so far: the session's first ones, then all. */
  events: Event[] | null;
  /** Only the first events are loaded; the rest is on its way. */
  partial: boolean;
  /** Stored positions (`seq`) of the loaded range this build cannot read. */
  unreadableSeqs: readonly number[];
  /** How many events of the loaded range this build cannot read. */
  unreadable: number;
  /** The events folded as the live session folds them. */
  model: SessionModel | null;
  stats: SessionStats | null;
  exported: ExportResult | null;
  error: string | null;
}

export interface ReaderActions {
  exportAs(format: ExportFormat): Promise<void>;
}

/**
 * One stored session: its summary, events (folded), statistics and exports.
 * The first events (through `seq`, when a jump asks for one) come first, so
 * the first screen shows at once; the whole session follows.
 */
export function useReader(sessionId: string, seq: number | null = null): [ReaderState, ReaderActions] {
  const [summary, setSummary] = useState<SessionSummary | null>(null);
  const [read, setRead] = useState<StoredEvents | null>(null);
  const [partial, setPartial] = useState(false);
  // Only the first request's jump target shapes the first page.
  const headCount = useRef(Math.max(READER_HEAD_EVENTS, (seq ?? 0) + READER_HEAD_EVENTS / 4));
  const [stats, setStats] = useState<SessionStats | null>(null);
  const [exported, setExported] = useState<ExportResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    // The reader is keyed by session id, so this runs once per session.
    let cancelled = false;
    const count = headCount.current;
    Promise.all([backend.sessionSummary(sessionId), backend.sessionEventsBefore(sessionId, count)])
      .then(async ([s, head]) => {
        if (cancelled) return;
        setSummary(s);
        setRead(head);
        // Statistics read every event of the session: asked for once the
        // first screen is on its way, so they never compete with it.
        backend.sessionStats(sessionId).then(
          (st) => !cancelled && setStats(st),
          (err: unknown) => !cancelled && setError(message(err)),
        );
        if (head.events.length + head.unreadable < count) return;
        setPartial(true);
        const all = await backend.sessionEvents(sessionId);
        if (cancelled) return;
        setRead(all);
        setPartial(false);
      })
      .catch((err: unknown) => !cancelled && setError(message(err)));
    return () => {
      cancelled = true;
    };
  }, [sessionId]);

  // A session still being written (a guarded Claude Code's, a CLI run's)
  // grows in place: its new events are appended when the backend names it.
  const readRef = useRef<StoredEvents | null>(null);
  useEffect(() => {
    readRef.current = partial ? null : read;
  }, [partial, read]);
  useEffect(() => {
    let cancelled = false;
    let fetching = false;
    let again = false;
    const append = async () => {
      const current = readRef.current;
      if (current === null) return;
      if (fetching) {
        again = true;
        return;
      }
      fetching = true;
      try {
        const after = current.events.length + current.unreadable;
        const [more, s] = await Promise.all([
          backend.sessionEventsAfter(sessionId, after),
          backend.sessionSummary(sessionId),
        ]);
        if (cancelled) return;
        setSummary(s);
        if (more.events.length + more.unreadable > 0) {
          setRead((r) => (r === null ? r : appended(r, more)));
          // The statistics count the new calls too.
          const st = await backend.sessionStats(sessionId);
          if (!cancelled) setStats(st);
        }
      } catch (err) {
        if (!cancelled) setError(message(err));
      } finally {
        fetching = false;
      }
      if (again && !cancelled) {
        again = false;
        await append();
      }
    };
    const unsubscribe = subscribeStoredSessions((changed) => {
      if (changed.session_ids.includes(sessionId)) void append();
    });
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [sessionId]);

  const events = read?.events ?? null;
  const model = useMemo(() => (events ? foldEvents(events) : null), [events]);
  return [
    {
      summary,
      events,
      partial,
      unreadableSeqs: read?.unreadable_seqs ?? [],
      unreadable: read?.unreadable ?? 0,
      model,
      stats,
      exported,
      error,
    },
    {
      exportAs: async (format) => {
        try {
          const result = await backend.exportSession(sessionId, format);
          if (result !== null) setExported(result);
        } catch (err) {
          setError(message(err));
        }
      },
    },
  ];
}

export interface ImportState {
  discovery: ClaudeDiscovery | null;
  selected: ReadonlySet<string>;
  importing: boolean;
  progress: ImportProgress | null;
  results: ImportFileResult[] | null;
  error: string | null;
}

export interface ImportActions {
  scan(): Promise<void>;
  toggle(path: string): void;
  importSelected(): Promise<void>;
  importAll(): Promise<void>;
}

/** The import panel: Claude Code transcripts found, imported with progress. */
export function useImport(onImported: () => void): [ImportState, ImportActions] {
  const [discovery, setDiscovery] = useState<ClaudeDiscovery | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [importing, setImporting] = useState(false);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [results, setResults] = useState<ImportFileResult[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const importingRef = useRef(false);

  const scan = useCallback(async () => {
    try {
      setDiscovery(await backend.discoverClaudeTranscripts());
      setError(null);
    } catch (err) {
      setError(message(err));
    }
  }, []);

  useEffect(() => {
    backend.discoverClaudeTranscripts().then(setDiscovery, (err: unknown) => setError(message(err)));
  }, []);

  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let cancelled = false;
    void onEvent((event) => {
      if (event.type === "import_progress" && importingRef.current) setProgress(event.progress);
    }).then((stop) => {
      if (cancelled) stop();
      else unlisten = stop;
    });
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, []);

  const run = async (paths: string[] | null) => {
    importingRef.current = true;
    setImporting(true);
    setProgress(null);
    setResults(null);
    try {
      setResults(await backend.importClaudeTranscripts(paths));
      setError(null);
      onImported();
      await scan();
    } catch (err) {
      setError(message(err));
    } finally {
      importingRef.current = false;
      setImporting(false);
    }
  };

  return [
    { discovery, selected, importing, progress, results, error },
    {
      scan,
      toggle: (path) =>
        setSelected((prev) => {
          const next = new Set(prev);
          if (!next.delete(path)) next.add(path);
          return next;
        }),
      importSelected: () => run([...selected]),
      importAll: () => run(null),
    },
  ];
}

export interface HousekeepingState {
  info: StorageInfo | null;
  /** The retention field's text (days; empty: keep forever). */
  retentionDraft: string;
  busy: boolean;
  note: string | null;
  error: string | null;
}

export interface HousekeepingActions {
  setRetentionDraft(text: string): void;
  saveRetention(apply: boolean): Promise<void>;
  vacuum(): Promise<void>;
}

/** Parses the retention field: a whole number of days ≥ 1, or empty for "forever". */
export function parseRetention(text: string): { days: number | null } | { error: string } {
  const t = text.trim();
  if (t === "") return { days: null };
  if (!/^\d+$/.test(t) || Number(t) < 1) return { error: `“${t}” is not a number of days (1 or more; empty keeps sessions forever)` };
  return { days: Number(t) };
}

/** Housekeeping: database size, retention, VACUUM. */
export function useHousekeeping(onChanged: () => void): [HousekeepingState, HousekeepingActions] {
  const [info, setInfo] = useState<StorageInfo | null>(null);
  const [retentionDraft, setRetentionDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = useCallback((next: StorageInfo) => {
    setInfo(next);
    setRetentionDraft(next.retention_days === null ? "" : String(next.retention_days));
  }, []);
  const load = useCallback(async () => show(await backend.storageInfo()), [show]);

  useEffect(() => {
    backend.storageInfo().then(show, (err: unknown) => setError(message(err)));
  }, [show]);

  return [
    { info, retentionDraft, busy, note, error },
    {
      setRetentionDraft,
      saveRetention: async (apply) => {
        const parsed = parseRetention(retentionDraft);
        if ("error" in parsed) {
          setError(parsed.error);
          return;
        }
        setBusy(true);
        try {
          const result = await backend.setRetention(parsed.days, apply);
          setNote(
            apply
              ? `Retention saved; ${plural(result.deleted.length, "session")} deleted.`
              : "Retention saved.",
          );
          setError(null);
          await load();
          if (result.deleted.length > 0) onChanged();
        } catch (err) {
          setError(message(err));
        } finally {
          setBusy(false);
        }
      },
      vacuum: async () => {
        setBusy(true);
        try {
          const before = info?.usage.database_bytes ?? null;
          const result = await backend.vacuumDatabase();
          setInfo((prev) => (prev ? { ...prev, usage: usageAfter(result) } : prev));
          setNote(compactionNote(before, result));
          setError(null);
        } catch (err) {
          setError(message(err));
        } finally {
          setBusy(false);
        }
      },
    },
  ];
}

/** `read` with the events stored after it. */
function appended(read: StoredEvents, more: StoredEvents): StoredEvents {
  return {
    events: [...read.events, ...more.events],
    unreadable_seqs: [...read.unreadable_seqs, ...more.unreadable_seqs],
    unreadable: read.unreadable + more.unreadable,
  };
}

