//! Full-text search over every session (SQLite FTS5).

use gatehouse_protocol::session::SearchSessionsArgs;
use rusqlite::{params_from_iter, types::Value as SqlValue};

use crate::{Store, StoreError};

pub use gatehouse_protocol::session::SearchHit;

/// The default number of matches.
const DEFAULT_LIMIT: u32 = 50;

/// Turns plain words into an FTS5 query that matches them all, whatever
/// characters they contain: each word becomes a quoted string (quotes
/// doubled), so `foo(` or `a-b` are not syntax errors.
pub fn literal_query(text: &str) -> String {
    text.split_whitespace()
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Store {
    /// Full-text search over every session's prompts, replies, tool calls
    /// and results (FTS5 query syntax), best matches first.
    pub fn search_sessions(&self, query: &str, limit: u32) -> Result<Vec<SearchHit>, StoreError> {
        self.search(&SearchSessionsArgs {
            query: query.to_owned(),
            limit: Some(limit),
            ..SearchSessionsArgs::default()
        })
    }

    /// Full-text search with filters (one project, one session) and plain
    /// word queries; best matches first. Each hit names the event to jump
    /// to (`seq`) and carries a snippet with the matches in `[` `]`. A query
    /// that is not valid FTS5 syntax is searched as plain words (see
    /// [`Self::search_detailed`], which also says when that happened).
    pub fn search(&self, args: &SearchSessionsArgs) -> Result<Vec<SearchHit>, StoreError> {
        self.search_detailed(args).map(|found| found.hits)
    }

    /// [`Self::search`], saying whether the query was searched as plain
    /// words because FTS5 could not read it (`TODO-4917`: the hyphen is
    /// syntax to FTS5, and `4917` became a column name). No SQLite error
    /// text about the query reaches the caller.
    pub fn search_detailed(&self, args: &SearchSessionsArgs) -> Result<SearchResults, StoreError> {
        let literal = args.literal.unwrap_or(false);
        let query = if literal {
            literal_query(&args.query)
        } else {
            args.query.clone()
        };
        if query.trim().is_empty() {
            return Err(StoreError::Invalid(
                "the search query is empty; type at least one word".into(),
            ));
        }
        match self.run_search(args, &query) {
            Ok(hits) => Ok(SearchResults {
                hits,
                as_words: None,
            }),
            // Any error of the statement with a user-written MATCH string is
            // taken for the query's syntax (FTS5 reports it as a plain
            // SQLITE_ERROR: "no such column", "syntax error near", "unknown
            // special query"…); the words, each quoted, cannot be a syntax
            // error, so a second failure is a real one and is reported.
            Err(SearchError::Query(_)) if !literal => {
                let words = literal_query(&args.query);
                let hits = self.run_search(args, &words).map_err(|e| match e {
                    SearchError::Query(e) | SearchError::Other(e) => self.sqlite_error(e),
                })?;
                Ok(SearchResults {
                    hits,
                    as_words: Some(words),
                })
            }
            Err(SearchError::Query(e) | SearchError::Other(e)) => Err(self.sqlite_error(e)),
        }
    }

    fn run_search(
        &self,
        args: &SearchSessionsArgs,
        query: &str,
    ) -> Result<Vec<SearchHit>, SearchError> {
        let mut filters = String::new();
        let mut values = vec![SqlValue::Text(query.to_owned())];
        if let Some(project) = &args.project_path {
            filters.push_str(" AND s.project_path = ?");
            values.push(SqlValue::Text(project.clone()));
        }
        if let Some(session) = &args.session_id {
            // Bound the index scan to the session's rows: FTS5 seeks rowid
            // ranges, so a common word is not matched across every session
            // first and filtered afterwards.
            let (first, last): (Option<i64>, Option<i64>) = self
                .conn
                .query_row(
                    "SELECT MIN(id), MAX(id) FROM session_events WHERE session_id = ?1",
                    [session],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(SearchError::Other)?;
            filters.push_str(" AND session_search.rowid BETWEEN ? AND ? AND e.session_id = ?");
            values.push(SqlValue::Integer(first.unwrap_or(0)));
            values.push(SqlValue::Integer(last.unwrap_or(-1)));
            values.push(SqlValue::Text(session.clone()));
        }
        values.push(SqlValue::Integer(i64::from(
            args.limit.unwrap_or(DEFAULT_LIMIT),
        )));
        let sql = format!(
            "SELECT e.session_id, e.seq, e.type, snippet(session_search, 0, '[', ']', '…', 12),
                    s.title, s.project_path,
                    CASE WHEN e.tool_use_id IS NULL THEN NULL ELSE
                      (SELECT q.tool_name FROM session_events q
                       WHERE q.tool_use_id = e.tool_use_id AND q.session_id = e.session_id
                         AND q.type = 'tool_queued' LIMIT 1) END
             FROM session_search
             JOIN session_events e ON e.id = session_search.rowid
             JOIN sessions s ON s.id = e.session_id
             WHERE session_search MATCH ?{filters}
             ORDER BY rank LIMIT ?"
        );
        let query_error = |e: rusqlite::Error| match &e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::Unknown => {
                SearchError::Query(e)
            }
            _ => SearchError::Other(e),
        };
        let mut stmt = self.conn.prepare(&sql).map_err(SearchError::Other)?;
        let rows = stmt
            .query_map(params_from_iter(values), |r| {
                Ok(SearchHit {
                    session_id: r.get(0)?,
                    seq: r.get(1)?,
                    kind: r.get(2)?,
                    snippet: r.get(3)?,
                    session_title: r.get(4)?,
                    project_path: r.get(5)?,
                    tool_name: r.get(6)?,
                })
            })
            .map_err(query_error)?;
        rows.collect::<Result<_, _>>().map_err(query_error)
    }
}

/// What [`Store::search_detailed`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    /// The matches, best first.
    pub hits: Vec<SearchHit>,
    /// Set when the query was not valid FTS5 syntax and was searched as
    /// these plain words (each quoted) instead.
    pub as_words: Option<String>,
}

/// A failed search statement: the query string's fault (FTS5 reports
/// syntax as a generic SQLite error), or anything else.
enum SearchError {
    Query(rusqlite::Error),
    Other(rusqlite::Error),
}
