//! Sub-agents (issue 19): agent definitions and the `Agent` tool.
//!
//! | module | what |
//! |---|---|
//! | [`definition`] | built-in types and `.claude/agents/*.md` files |
//! | [`frontmatter`] | the YAML front matter subset those files use |
//! | [`tool`] | the `Agent` tool: input, description, scheduling, result |
//! | [`run`] | running one sub-agent: its runtime, session, progress, report |
//! | [`background`] | `run_in_background`: a sub-agent as a session task |

pub mod background;
pub mod definition;
pub mod frontmatter;
pub mod run;
pub mod tool;

pub use definition::{
    AgentDefinition, AgentDefinitions, DefinitionDirs, DefinitionError, DefinitionSource, Isolation,
};
pub use run::{
    DEFAULT_SUBAGENT_MAX_TURNS, SameProvider, SameSink, SubagentEnv, SubagentProviders,
    SubagentRecorder, SubagentSpawn, subagent_pool,
};
pub use tool::{AgentOutput, AgentTool, BackgroundAgentOutput, DeniedCall, WorktreeNote};
