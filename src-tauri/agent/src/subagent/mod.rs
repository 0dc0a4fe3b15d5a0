//! Sub-agents (issue 19): agent definitions and the `Agent` tool.
//!
//! | module | what |
//! |---|---|
//! | [`definition`] | built-in types and `.claude/agents/*.md` files |
//! | [`frontmatter`] | the YAML front matter subset those files use |

pub mod definition;
pub mod frontmatter;

pub use definition::{
    AgentDefinition, AgentDefinitions, DefinitionDirs, DefinitionError, DefinitionSource, Isolation,
};
