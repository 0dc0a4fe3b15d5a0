//! File-system paths as the engine sees them: canonical forms, containment
//! in the working directories, gitignore-style rule patterns, protected
//! paths and critical deletions.
//!
//! Containment is always decided component by component on canonical paths
//! (`Path::starts_with`), never on string prefixes: `/p-secrets` is not
//! inside `/p`.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Joins `path` onto `base` when it is relative, and removes `.` and `..`
/// segments without touching the file system (no symlink resolution).
pub fn lexical_absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The canonical form of `path` (made absolute against `base`): every
/// symlink in the part that exists is resolved, the part that does not
/// exist yet is appended with `.` and `..` removed. Never fails.
pub fn canonical(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    let mut exists = true;
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            Component::Normal(name) => {
                out.push(name);
                if exists {
                    if std::fs::symlink_metadata(&out).is_ok() {
                        if let Ok(real) = std::fs::canonicalize(&out) {
                            out = real;
                        }
                    } else {
                        exists = false;
                    }
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The two names a path may be checked under: as written (made absolute,
/// `..` removed) and with every symlink resolved. They differ only when a
/// symlink is involved; rules then follow the symlink semantics: an allow
/// needs both to match, a deny fires if either does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathForms {
    /// The path as written, absolute, without `.`/`..`.
    pub lexical: PathBuf,
    /// The path with every existing symlink resolved.
    pub canonical: PathBuf,
}

impl PathForms {
    /// Both forms of `path` relative to `cwd`.
    pub fn new(cwd: &Path, path: &Path) -> PathForms {
        PathForms {
            lexical: lexical_absolute(cwd, path),
            canonical: canonical(cwd, path),
        }
    }

    /// The forms, de-duplicated.
    pub fn iter(&self) -> impl Iterator<Item = &Path> {
        let second = (self.canonical != self.lexical).then_some(self.canonical.as_path());
        std::iter::once(self.lexical.as_path()).chain(second)
    }
}

/// True when `path` is `dir` or inside it, compared by whole components.
pub fn is_within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

/// Checks that a path pattern compiles, without resolving it.
pub fn validate_pattern(pattern: &str) -> Result<(), String> {
    let (_, rest, _) = split_anchor(pattern);
    if rest.is_empty() {
        return Ok(());
    }
    GlobBuilder::new(rest)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|_| ())
        .map_err(|e| format!("invalid path pattern: {e}"))
}

/// Where a path pattern is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// `//abs`: the file-system root.
    Root,
    /// `~/p`: the home directory.
    Home,
    /// `/p`: the root of the settings file's project.
    SettingsRoot,
    /// `p` or `./p`: the current working directory.
    Cwd,
}

/// Splits a pattern into its anchor, the rest, and whether the rest may
/// match at any depth (a bare name, as in gitignore).
fn split_anchor(pattern: &str) -> (Anchor, &str, bool) {
    if let Some(rest) = pattern.strip_prefix("//") {
        (Anchor::Root, rest, false)
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        (Anchor::Home, rest, false)
    } else if pattern == "~" {
        (Anchor::Home, "", false)
    } else if let Some(rest) = pattern.strip_prefix('/') {
        (Anchor::SettingsRoot, rest, false)
    } else if let Some(rest) = pattern.strip_prefix("./") {
        (Anchor::Cwd, rest, false)
    } else {
        let floating = !pattern.trim_end_matches('/').contains('/');
        (Anchor::Cwd, pattern, floating)
    }
}

/// The directories a path pattern is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct PatternBases<'a> {
    /// The current working directory.
    pub cwd: &'a Path,
    /// The home directory.
    pub home: &'a Path,
    /// The root of the settings file the rule came from (the project root
    /// for project settings); `None` falls back to the cwd.
    pub settings_root: Option<&'a Path>,
}

/// A path rule compiled against its base directory, in both the lexical and
/// the canonical spelling of that base.
#[derive(Debug, Clone)]
pub struct CompiledPathPattern {
    globs: Vec<globset::Glob>,
    set: GlobSet,
}

impl CompiledPathPattern {
    /// Compiles `pattern` (gitignore-style, with the four anchors).
    ///
    /// A pattern matches the path itself and, like a gitignore directory
    /// entry, everything below it.
    pub fn compile(pattern: &str, bases: PatternBases<'_>) -> Result<Self, String> {
        let (anchor, rest, floating) = split_anchor(pattern);
        let base: PathBuf = match anchor {
            Anchor::Root => PathBuf::from("/"),
            Anchor::Home => bases.home.to_path_buf(),
            Anchor::SettingsRoot => bases.settings_root.unwrap_or(bases.cwd).to_path_buf(),
            Anchor::Cwd => bases.cwd.to_path_buf(),
        };
        let rest = rest.trim_end_matches('/');
        let lexical_base = lexical_absolute(bases.cwd, &base);
        let canonical_base = canonical(bases.cwd, &base);
        let mut globs = Vec::new();
        let mut bases_seen: Vec<&PathBuf> = vec![&lexical_base];
        if canonical_base != lexical_base {
            bases_seen.push(&canonical_base);
        }
        for b in bases_seen {
            let escaped = globset::escape(&b.to_string_lossy());
            let prefix = escaped.trim_end_matches('/');
            let mut texts = Vec::new();
            if rest.is_empty() {
                texts.push(format!("{prefix}/**"));
                texts.push(if prefix.is_empty() {
                    "/".to_string()
                } else {
                    prefix.to_string()
                });
            } else if floating {
                texts.push(format!("{prefix}/**/{rest}"));
                texts.push(format!("{prefix}/**/{rest}/**"));
            } else {
                texts.push(format!("{prefix}/{rest}"));
                texts.push(format!("{prefix}/{rest}/**"));
            }
            for text in texts {
                let glob = GlobBuilder::new(&text)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| format!("invalid path pattern: {e}"))?;
                globs.push(glob);
            }
        }
        let mut builder = GlobSetBuilder::new();
        for g in &globs {
            builder.add(g.clone());
        }
        let set = builder
            .build()
            .map_err(|e| format!("invalid path pattern: {e}"))?;
        Ok(CompiledPathPattern { globs, set })
    }

    /// The globs, for building a combined set over many rules.
    pub fn globs(&self) -> &[globset::Glob] {
        &self.globs
    }

    /// True when `path` (absolute) is matched.
    pub fn matches(&self, path: &Path) -> bool {
        self.set.is_match(path)
    }
}

/// Directory names that are protected wherever they appear in a path.
const PROTECTED_DIRS: &[&str] = &[".git", ".claude", ".vscode", ".idea", ".husky"];

/// File names that are protected wherever they appear.
const PROTECTED_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".inputrc",
    ".gitconfig",
    ".gitmodules",
    ".mcp.json",
    ".claude.json",
    ".ripgreprc",
];

/// Why writing to `path` is a protected write, if it is one: a protected
/// directory (`.git/`, `.claude/`, `.vscode/`…) anywhere in the path, or a
/// shell or tool configuration file (`.bashrc`, `.mcp.json`…).
pub fn protected_reason(path: &Path) -> Option<String> {
    for component in path.components() {
        if let Component::Normal(name) = component
            && let Some(dir) = PROTECTED_DIRS.iter().find(|d| OsStr::new(d) == name)
        {
            return Some(format!(
                "writes to `{dir}/` are protected: {}",
                path.display()
            ));
        }
    }
    let name = path.file_name()?;
    PROTECTED_FILES
        .iter()
        .find(|f| OsStr::new(f) == name)
        .map(|f| {
            format!(
                "`{f}` is a protected configuration file: {}",
                path.display()
            )
        })
}

/// Why deleting `path` is a critical deletion, if it is one: the root, the
/// home directory, or the cwd or one of its parents.
pub fn critical_deletion_reason(path: &Path, cwd: &Path, home: &Path) -> Option<String> {
    if path.parent().is_none() {
        return Some(format!(
            "deleting the root `{}` is critical",
            path.display()
        ));
    }
    if path == home {
        return Some(format!(
            "deleting the home directory `{}` is critical",
            path.display()
        ));
    }
    if cwd.starts_with(path) {
        return Some(format!(
            "deleting `{}` removes the working directory",
            path.display()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_collision_is_outside() {
        assert!(!is_within(Path::new("/p-secrets/x"), Path::new("/p")));
        assert!(is_within(Path::new("/p/x"), Path::new("/p")));
        assert!(is_within(Path::new("/p"), Path::new("/p")));
    }

    #[test]
    fn lexical_removes_dots() {
        assert_eq!(
            lexical_absolute(Path::new("/a/b"), Path::new("../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(
            lexical_absolute(Path::new("/a"), Path::new("/../../x")),
            PathBuf::from("/x")
        );
    }

    #[test]
    fn anchors() {
        let bases = PatternBases {
            cwd: Path::new("/w/p/sub"),
            home: Path::new("/h"),
            settings_root: Some(Path::new("/w/p")),
        };
        let m = |pat: &str, path: &str| {
            CompiledPathPattern::compile(pat, bases)
                .unwrap()
                .matches(Path::new(path))
        };
        assert!(m("//etc/passwd", "/etc/passwd"));
        assert!(m("~/.ssh/**", "/h/.ssh/id_rsa"));
        assert!(m("~/.ssh", "/h/.ssh/id_rsa"));
        assert!(m("/secrets/**", "/w/p/secrets/a"));
        assert!(!m("/secrets/**", "/w/p/sub/secrets/a"));
        assert!(m(".env", "/w/p/sub/a/b/.env"));
        assert!(!m(".env", "/w/p/.env"));
        assert!(m("./src/*.rs", "/w/p/sub/src/a.rs"));
        assert!(!m("./src/*.rs", "/w/p/sub/src/x/a.rs"));
        assert!(m("src/**/*.rs", "/w/p/sub/src/x/a.rs"));
        assert!(m("*.key", "/w/p/sub/deep/er/a.key"));
    }

    #[test]
    fn protected_and_critical() {
        assert!(protected_reason(Path::new("/p/.git/config")).is_some());
        assert!(protected_reason(Path::new("/h/.bashrc")).is_some());
        assert!(protected_reason(Path::new("/p/src/main.rs")).is_none());
        assert!(protected_reason(Path::new("/p/.github/x")).is_none());
        let cwd = Path::new("/h/p");
        let home = Path::new("/h");
        assert!(critical_deletion_reason(Path::new("/"), cwd, home).is_some());
        assert!(critical_deletion_reason(Path::new("/h"), cwd, home).is_some());
        assert!(critical_deletion_reason(Path::new("/h/p"), cwd, home).is_some());
        assert!(critical_deletion_reason(Path::new("/h/p/build"), cwd, home).is_none());
    }
}
