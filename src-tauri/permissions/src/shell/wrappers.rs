//! Wrapper commands that run another command (`timeout 5 cmd`, `nice cmd`,
//! flag-less `xargs cmd`, `env A=1 cmd`…): finding where the command proper
//! starts, so rules match what really runs.

use super::Assignment;
use super::words::WordInfo;

/// The result of stripping wrappers.
pub struct Stripped {
    /// Index of the first word of the command proper.
    pub core_start: usize,
    /// `NAME=value` words given to `env`, as assignments.
    pub env_assignments: Vec<Assignment>,
}

/// Options of a wrapper that take a value as the next word.
fn option_takes_value(wrapper: &str, option: &str) -> bool {
    match wrapper {
        "timeout" => matches!(option, "-s" | "--signal" | "-k" | "--kill-after"),
        "nice" => matches!(option, "-n" | "--adjustment"),
        "stdbuf" => matches!(option, "-i" | "-o" | "-e"),
        "exec" => option == "-a",
        "env" => matches!(
            option,
            "-u" | "--unset" | "-C" | "--chdir" | "-S" | "--split-string"
        ),
        _ => false,
    }
}

/// Options of a wrapper that stay a wrapper (anything else stops stripping,
/// so `command -v x` and `xargs -I{} sh -c …` stay as written).
fn option_allowed(wrapper: &str, option: &str) -> bool {
    match wrapper {
        "timeout" => {
            option_takes_value(wrapper, option)
                || option.starts_with("--signal=")
                || option.starts_with("--kill-after=")
                || matches!(
                    option,
                    "--preserve-status" | "--foreground" | "-v" | "--verbose"
                )
                || (option.starts_with("-s") || option.starts_with("-k")) && option.len() > 2
        }
        "time" => option == "-p",
        "nice" => {
            option_takes_value(wrapper, option)
                || option.starts_with("--adjustment=")
                || option[1..].chars().all(|c| c.is_ascii_digit() || c == '-')
        }
        "stdbuf" => {
            option_takes_value(wrapper, option)
                || (option.len() > 2 && ["-i", "-o", "-e"].iter().any(|p| option.starts_with(p)))
                || ["--input=", "--output=", "--error="]
                    .iter()
                    .any(|p| option.starts_with(p))
        }
        "command" => option == "-p",
        "exec" => matches!(option, "-a" | "-c" | "-l" | "-cl" | "-lc"),
        "env" => {
            matches!(option, "-i" | "--ignore-environment" | "-0" | "--null")
                || option_takes_value(wrapper, option)
        }
        _ => false,
    }
}

/// Finds the command proper behind any chain of wrappers.
pub fn strip(words: &[WordInfo]) -> Stripped {
    let mut i = 0;
    let mut env_assignments = Vec::new();
    while let Some(word) = words.get(i) {
        if !word.literal {
            break;
        }
        let name = word.text.as_str();
        let is_wrapper = matches!(
            name,
            "timeout"
                | "time"
                | "nice"
                | "nohup"
                | "stdbuf"
                | "command"
                | "builtin"
                | "xargs"
                | "exec"
                | "env"
        );
        if !is_wrapper {
            break;
        }
        let mut j = i + 1;
        let mut ok = true;
        // Options.
        while let Some(w) = words.get(j) {
            let t = w.text.as_str();
            if t == "--" {
                j += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            if name == "xargs" || !option_allowed(name, t) || !w.literal {
                ok = false;
                break;
            }
            j += if option_takes_value(name, t) { 2 } else { 1 };
        }
        if !ok {
            break;
        }
        // Positional arguments of the wrapper itself.
        match name {
            "timeout" => j += 1, // the duration
            "env" => {
                while let Some(w) = words.get(j) {
                    match w.text.split_once('=') {
                        Some((n, v)) if is_name(n) => {
                            env_assignments.push(Assignment {
                                name: n.to_string(),
                                value: WordInfo {
                                    text: v.to_string(),
                                    ..w.clone()
                                },
                            });
                            j += 1;
                        }
                        _ => break,
                    }
                }
            }
            _ => {}
        }
        if j >= words.len() {
            // A wrapper with nothing to run (`env`, `time`): it is the command.
            break;
        }
        i = j;
    }
    Stripped {
        core_start: i,
        env_assignments,
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}
