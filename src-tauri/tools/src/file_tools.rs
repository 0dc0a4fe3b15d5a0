//! The constructor the registry calls: every file and search tool of one
//! session, sharing that session's [`FileStateCache`].

use std::sync::Arc;

use gatehouse_core::{Tool, Typed};

use crate::edit::EditTool;
use crate::file_state::FileStateCache;
use crate::glob::GlobTool;
use crate::grep::GrepTool;
use crate::notebook_edit::NotebookEditTool;
use crate::read::ReadTool;
use crate::write::WriteTool;

/// Read, Write, Edit, NotebookEdit, Glob and Grep for one session, the
/// readers and writers sharing `state` (create one per session with
/// [`FileStateCache::new`]). A call whose context carries a
/// [`SharedFileState`](crate::file_state::SharedFileState) uses that cache
/// instead.
pub fn file_tools(state: Arc<FileStateCache>) -> Vec<Arc<dyn Tool>> {
    vec![
        Typed::arc(ReadTool::new(Arc::clone(&state))),
        Typed::arc(WriteTool::new(Arc::clone(&state))),
        Typed::arc(EditTool::new(Arc::clone(&state))),
        Typed::arc(NotebookEditTool::new(state)),
        Typed::arc(GlobTool::new()),
        Typed::arc(GrepTool::new()),
    ]
}
