//! The Bash tool (SPEC §7, issue 6): runs a command in the user's shell,
//! streams its output live, enforces a timeout, and kills the whole process
//! group when it has to stop; with `run_in_background` it starts a task
//! instead (see [`crate::tasks`]).
//!
//! | module | what |
//! |---|---|
//! | [`classifier`] | the seam to the permission engine's shell analysis |
//! | [`launcher`] | the user's shell, and the sandbox seam |
//! | [`sandboxed`] | the bubblewrap sandbox behind the seam, per session |
//! | [`process`] | spawning in a process group, reading output, ending the group |
//! | [`output`] | output on disk, coalesced progress, the model's head/tail view |
//! | [`cwd`] | the persistent working directory |
//!
//! How a call ends, for the model: exit code 0 is a success; any other
//! exit or a timeout is an error result (so a failing Bash call aborts its
//! siblings, SPEC §4) whose text is the output so far plus what happened.
//! A cancelled call (user interrupt, failed sibling) ends the process group
//! and reports `ToolError::CancelledWithOutput` with the output so far and
//! how the group ended; the runtime waits a bounded time for that answer,
//! and if it drops the call instead, the group is ended from the drop path.
//! Either way a final `tool_progress` event of kind `interrupted` tells the
//! UI, and the whole output stays on disk.

pub mod classifier;
pub mod cwd;
pub mod launcher;
pub mod output;
pub mod process;
pub mod sandboxed;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::budget::sanitize_file_stem;
use gatehouse_core::context::ToolUseContext;
use gatehouse_core::permission::{PermissionSubject, ToolPermissionVerdict};
use gatehouse_core::tool::{CallContext, InterruptBehavior, ProgressReporter, Tool, ToolResult};
use gatehouse_core::typed::{Typed, TypedTool};
use gatehouse_protocol::progress::{SandboxConnection, SandboxDenial, ToolProgressData};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use self::classifier::{CommandClassifier, FailClosedClassifier};
use self::cwd::{COMMAND_VAR, CWD_FILE_VAR, ShellDirs, WRAPPER, working_dirs};
use self::launcher::{CommandLauncher, LaunchSpec, PlainLauncher, user_shell};
use self::output::{OutputRecorder, ProgressCoalescer};
use self::process::{OutputHandler, RunEnd, StopCause, Termination};
use self::sandboxed::{BashSandbox, SandboxCall, SharedSandbox};
use crate::tasks::{TaskManager, TaskOutputTool, TaskStopTool};

/// The tool's name.
pub const BASH: &str = "Bash";
/// The timeout when the input gives none, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest timeout accepted, in milliseconds.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// The longest command accepted, in bytes (the kernel limits one
/// environment string to 128 KiB).
pub const MAX_COMMAND_BYTES: usize = 100_000;
/// Bytes of output's beginning the model gets.
pub const DEFAULT_HEAD_BYTES: usize = 15_000;
/// Bytes of output's end the model gets.
pub const DEFAULT_TAIL_BYTES: usize = 15_000;
/// Between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(3);

/// How the shell tools are set up for one session.
#[derive(Debug, Clone)]
pub struct BashConfig {
    /// Where each call's whole output is written (`<id>.log`), normally
    /// `<session dir>/bash`.
    pub output_dir: PathBuf,
    /// The shell; `None` picks the user's ([`user_shell`]).
    pub shell: Option<PathBuf>,
    /// Between SIGTERM and SIGKILL when a command must stop.
    pub grace: Duration,
    /// Output bytes from the start kept for the model.
    pub head_bytes: usize,
    /// Output bytes from the end kept for the model.
    pub tail_bytes: usize,
    /// Shell analysis (from the permission engine).
    pub classifier: Arc<dyn CommandClassifier>,
    /// Builds the shell process when the sandbox does not apply.
    pub launcher: Arc<dyn CommandLauncher>,
    /// The session's sandbox (issue 24); off by default. Shared so a
    /// settings change reaches the next call; each call reads it once.
    pub sandbox: SharedSandbox,
}

impl BashConfig {
    /// Defaults, writing output under `output_dir`: the user's shell, a
    /// 3 s grace period, 15 000 + 15 000 bytes for the model, the
    /// fail-closed classifier and the plain (unsandboxed) launcher.
    pub fn new(output_dir: impl Into<PathBuf>) -> Self {
        Self {
            output_dir: output_dir.into(),
            shell: None,
            grace: DEFAULT_GRACE,
            head_bytes: DEFAULT_HEAD_BYTES,
            tail_bytes: DEFAULT_TAIL_BYTES,
            classifier: Arc::new(FailClosedClassifier),
            launcher: Arc::new(PlainLauncher),
            sandbox: SharedSandbox::default(),
        }
    }
}

/// The shell tools of one session: Bash, TaskOutput and TaskStop, sharing
/// `tasks`.
pub fn shell_tools(tasks: Arc<TaskManager>, config: BashConfig) -> Vec<Arc<dyn Tool>> {
    vec![
        Typed::arc(BashTool::new(config, Arc::clone(&tasks))),
        Typed::arc(TaskOutputTool::new(Arc::clone(&tasks))),
        Typed::arc(TaskStopTool::new(tasks)),
    ]
}

/// Bash's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashInput {
    /// The command to run.
    pub command: String,
    /// Optional timeout in milliseconds (default 120000, at most 600000).
    #[serde(default)]
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout: Option<u64>,
    /// A clear, concise description of what the command does, in 5-10 words.
    #[serde(default)]
    pub description: Option<String>,
    /// Run the command in the background and return a task id at once;
    /// read its output with TaskOutput and stop it with TaskStop.
    #[serde(default)]
    pub run_in_background: bool,
    /// Run this command outside the sandbox (only when the sandbox is on;
    /// the user is always asked).
    #[serde(default, rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: bool,
}

/// How a foreground command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BashOutcome {
    /// It exited (see `exit_code` / `signal`).
    Exited,
    /// It ran past its timeout and was stopped.
    TimedOut,
    /// The call was cancelled and the command stopped.
    Interrupted,
    /// It was started as a background task.
    Background,
}

/// Bash's output.
#[derive(Debug, Clone, Serialize)]
pub struct BashOutput {
    /// The output for the model: stdout and stderr interleaved, ANSI
    /// stripped, the middle elided when over budget.
    pub output: String,
    /// How it ended.
    pub outcome: BashOutcome,
    /// The exit code, when the shell exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the shell, if one did.
    pub signal: Option<i32>,
    /// How the process group was ended, when Gatehouse ended it.
    pub termination: Option<String>,
    /// Bytes of output in all.
    pub total_bytes: u64,
    /// Bytes left out of `output`.
    pub elided_bytes: u64,
    /// Where the whole output is.
    pub output_path: Option<String>,
    /// The shell's working directory after the command.
    pub cwd: String,
    /// Things the model should know (cwd reset, processes left behind).
    pub notes: Vec<String>,
    /// The task id, for a background command.
    pub task_id: Option<String>,
    /// The connections the sandbox's network proxy was asked for
    /// (`sandbox.network.allowedDomains`); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub network: Vec<SandboxConnection>,
    /// The writes the sandbox refused, read from the syscalls; empty
    /// otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<SandboxDenial>,
    /// Refused writes not listed in `blocked` (over the per-call cap).
    #[serde(skip_serializing_if = "is_zero")]
    pub blocked_omitted: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl BashOutput {
    /// The text the model gets.
    pub fn text(&self) -> String {
        let mut text = self.output.clone();
        let mut add = |line: &str| {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(line);
        };
        match self.outcome {
            BashOutcome::Exited => match (self.exit_code, self.signal) {
                (Some(0), _) => {}
                (Some(code), _) => add(&format!("Exit code {code}")),
                (None, Some(sig)) => add(&format!("The shell was killed by signal {sig}")),
                (None, None) => add("The shell's exit status is unknown"),
            },
            BashOutcome::TimedOut | BashOutcome::Interrupted | BashOutcome::Background => {}
        }
        if let Some(t) = &self.termination {
            add(t);
        }
        for note in &self.notes {
            add(note);
        }
        if self.output.is_empty()
            && self.outcome == BashOutcome::Exited
            && self.exit_code == Some(0)
        {
            add("(no output)");
        }
        text
    }

    fn is_success(&self) -> bool {
        match self.outcome {
            BashOutcome::Exited => self.exit_code == Some(0),
            BashOutcome::Background => true,
            BashOutcome::TimedOut | BashOutcome::Interrupted => false,
        }
    }
}

/// The Bash tool. Create with [`shell_tools`] or [`BashTool::new`].
#[derive(Debug)]
pub struct BashTool {
    config: BashConfig,
    tasks: Arc<TaskManager>,
    dirs: ShellDirs,
}

impl BashTool {
    /// A Bash tool starting background commands in `tasks`.
    pub fn new(config: BashConfig, tasks: Arc<TaskManager>) -> Self {
        Self {
            config,
            tasks,
            dirs: ShellDirs::default(),
        }
    }

    fn shell(&self) -> PathBuf {
        self.config.shell.clone().unwrap_or_else(user_shell)
    }
}

/// Feeds output to the recorder (model, disk) and the coalescer (UI).
struct Sink<'a> {
    recorder: OutputRecorder,
    coalescer: ProgressCoalescer,
    progress: &'a ProgressReporter,
}

impl OutputHandler for Sink<'_> {
    fn output(&mut self, bytes: &[u8]) {
        self.recorder.push(bytes);
        self.coalescer.push(bytes);
    }

    fn tick(&mut self) {
        self.coalescer.flush(self.progress);
    }
}

/// Tells the UI the command was stopped if the call future is dropped
/// before it could say so itself.
struct DropNotice {
    progress: ProgressReporter,
    output_path: PathBuf,
    armed: bool,
}

impl Drop for DropNotice {
    fn drop(&mut self) {
        if self.armed {
            self.progress.report(ToolProgressData::BashInterrupted {
                message: "The call was cancelled; the command's process group was sent SIGTERM (SIGKILL follows after the grace period).".into(),
                output_path: Some(self.output_path.display().to_string()),
            });
        }
    }
}

#[async_trait]
impl TypedTool for BashTool {
    type Input = BashInput;
    type Output = BashOutput;

    fn name(&self) -> &str {
        BASH
    }

    fn description(&self) -> &str {
        "Runs a shell command in the user's shell (bash or zsh) and returns its output (stdout and stderr interleaved). \
         The working directory persists between calls inside the project's working directories. \
         stdin is closed, so interactive commands fail. Timeout: 2 minutes by default, at most 10 minutes (`timeout` in ms). \
         Long output is cut in the middle; the whole output is saved to a file whose path is given. \
         For long-running processes (servers, watchers) set `run_in_background` and read the output with TaskOutput; stop it with TaskStop."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("run shell commands in a terminal")
    }

    fn is_concurrency_safe(&self, input: &BashInput) -> bool {
        self.config.classifier.is_read_only(&input.command)
    }

    fn is_read_only(&self, input: &BashInput) -> bool {
        self.config.classifier.is_read_only(&input.command)
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn aborts_siblings_on_error(&self) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> usize {
        // Our own head/tail budget applies first; leave room for the notes.
        self.config.head_bytes + self.config.tail_bytes + 10_000
    }

    async fn validate_input(
        &self,
        input: &BashInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        validate_command(&input.command)?;
        if input.timeout.is_some_and(|t| t == 0 || t > MAX_TIMEOUT_MS) {
            return Err(ToolError::invalid(format!(
                "timeout must be between 1 and {MAX_TIMEOUT_MS} ms"
            )));
        }
        Ok(())
    }

    async fn check_permissions(
        &self,
        input: &BashInput,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        if input.dangerously_disable_sandbox && self.config.sandbox.current().is_on() {
            return ToolPermissionVerdict::Ask {
                reason: "the command asks to run outside the sandbox (dangerouslyDisableSandbox)"
                    .into(),
            };
        }
        self.config.classifier.check(&input.command)
    }

    fn permission_subject(
        &self,
        input: &BashInput,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        Some(PermissionSubject::Command(input.command.clone()))
    }

    async fn call(
        &self,
        input: BashInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<BashOutput>, ToolError> {
        // The runtime validates first, but `call` must not trust that.
        validate_command(&input.command)?;
        let ctx = cx.ctx;
        let root = ctx.cwd.canonicalize().map_err(|e| {
            ToolError::io(
                format!("the working directory {} is not usable", ctx.cwd.display()),
                e,
            )
        })?;
        let roots = working_dirs(&ctx.cwd, &ctx.additional_dirs);
        // Each agent of a session (main thread, sub-agents) has its own shell.
        let shell_key = match &ctx.agent_id {
            Some(agent) => format!("{}/{agent}", ctx.session_id),
            None => ctx.session_id.clone(),
        };
        let start = self.dirs.start_dir(&shell_key, &root, &roots);
        let shell = self.shell();
        if !shell.is_file() {
            return Err(ToolError::failed(format!(
                "The shell {} does not exist: install bash, or set $SHELL to an installed bash or zsh.",
                shell.display()
            )));
        }
        let mut notes: Vec<String> = start.reset_note.into_iter().collect();

        if input.run_in_background {
            return self.start_background(&input, &cx, &shell, start.dir, &roots, notes);
        }
        // One reading per call: a settings change between the launch and
        // what the UI is told cannot make them disagree.
        let sandbox = self.sandbox_for_call(&input, cx.ctx)?;

        let trailer = tempfile::Builder::new()
            .prefix("gatehouse-cwd-")
            .tempfile()
            .map_err(|e| ToolError::io("could not create the working-directory trailer file", e))?;
        let (cmd, call) =
            self.launch(&input, &sandbox, &shell, trailer.path(), &start.dir, &roots)?;
        let spawned = process::spawn(cmd)
            .map_err(|e| ToolError::io(format!("could not start {}", shell.display()), e))?;
        let output_path = self
            .config
            .output_dir
            .join(format!("{}.log", sanitize_file_stem(cx.tool_use_id)));
        cx.progress.report(ToolProgressData::BashStarted {
            pid: Some(spawned.pgid),
            cwd: Some(start.dir.display().to_string()),
            description: input.description.clone(),
            output_path: Some(output_path.display().to_string()),
            sandbox: sandbox.usage(&input.command, input.dangerously_disable_sandbox, &roots),
        });
        let mut notice = DropNotice {
            progress: cx.progress.clone(),
            output_path: output_path.clone(),
            armed: true,
        };
        let mut sink = Sink {
            recorder: OutputRecorder::create(
                output_path,
                self.config.head_bytes,
                self.config.tail_bytes,
            ),
            coalescer: ProgressCoalescer::default(),
            progress: cx.progress,
        };
        let timeout = Duration::from_millis(
            input
                .timeout
                .unwrap_or(DEFAULT_TIMEOUT_MS)
                .clamp(1, MAX_TIMEOUT_MS),
        );
        let cancel = cx.cancel.clone();
        let stop = async move {
            tokio::select! {
                () = tokio::time::sleep(timeout) => StopCause::Timeout(timeout),
                () = cancel.cancelled() => StopCause::Interrupted,
            }
        };
        let end = process::drive(spawned, self.config.grace, stop, &mut sink).await;
        sink.coalescer.finish(cx.progress);
        notice.armed = false;

        let reported = std::fs::read_to_string(trailer.path()).unwrap_or_default();
        let final_dir = if end.stopped.is_none() {
            if let Some(note) = self.dirs.record(&shell_key, &reported, &root, &roots) {
                notes.push(note);
            }
            self.dirs.start_dir(&shell_key, &root, &roots).dir
        } else {
            start.dir
        };
        let mut result = self.finish(end, &sink.recorder, final_dir, notes);
        if let (Some(refusals), Some(network)) = (&call.refusals, call.network) {
            // Every trapped call was recorded before the kernel ran it (or
            // was refused), so once the shell has ended the record is
            // complete.
            let (denials, omitted) = sandboxed::denials(refusals.blocked());
            result.notes.extend(sandboxed::denial_notes(
                &denials,
                omitted,
                Path::new(&result.cwd),
                network,
            ));
            if !denials.is_empty() || omitted > 0 {
                cx.progress.report(ToolProgressData::BashBlocked {
                    denials: denials.clone(),
                    omitted,
                });
            }
            result.blocked = denials;
            result.blocked_omitted = omitted;
        }
        if let Some(proxy) = call.proxy {
            // The command has ended: the proxy's record is complete, and
            // dropping it closes whatever a leftover process kept open.
            result.network = sandboxed::connections(&proxy);
            result
                .notes
                .extend(sandboxed::blocked_notes(&result.network));
            if !result.network.is_empty() {
                cx.progress.report(ToolProgressData::BashNetwork {
                    connections: result.network.clone(),
                });
            }
        }
        if result.outcome == BashOutcome::Exited {
            cx.progress.report(ToolProgressData::BashExited {
                exit_code: result.exit_code,
                signal: result.signal,
            });
        }
        if result.outcome == BashOutcome::Interrupted {
            // A cancelled call is not a failure (no sibling abort, no
            // failure hooks); the UI has the output and is told how the
            // group ended, the file has all of it.
            cx.progress.report(ToolProgressData::BashInterrupted {
                message: result
                    .termination
                    .clone()
                    .unwrap_or_else(|| "The command was interrupted.".into()),
                output_path: result.output_path.clone(),
            });
            return Err(ToolError::CancelledWithOutput(result.text()));
        }
        if result.is_success() {
            Ok(ToolResult::new(result))
        } else if result.outcome == BashOutcome::TimedOut {
            Err(ToolError::TimedOut(result.text()))
        } else {
            Err(ToolError::failed(result.text()))
        }
    }

    fn map_result(
        &self,
        output: &BashOutput,
        _tool_use_id: &str,
    ) -> Vec<gatehouse_protocol::event::ContentBlock> {
        vec![gatehouse_protocol::event::ContentBlock::Text {
            text: output.text(),
        }]
    }
}

impl BashTool {
    /// The shell process for `input`, through the sandbox when it applies,
    /// else the launcher; the final cwd is written to `cwd_file`. With
    /// the sandbox, also what the call keeps until the command ends (its
    /// proxy and write watch).
    fn launch(
        &self,
        input: &BashInput,
        sandbox: &BashSandbox,
        shell: &Path,
        cwd_file: &Path,
        dir: &Path,
        roots: &[PathBuf],
    ) -> Result<(tokio::process::Command, SandboxCall), ToolError> {
        let env = [
            (COMMAND_VAR.to_owned(), input.command.clone()),
            (CWD_FILE_VAR.to_owned(), cwd_file.display().to_string()),
        ];
        let files = [cwd_file.to_path_buf()];
        let spec = LaunchSpec {
            shell,
            script: WRAPPER,
            cwd: dir,
            env: &env,
            working_dirs: roots,
            writable_files: &files,
        };
        match sandbox.launcher_for(&input.command, input.dangerously_disable_sandbox) {
            Some(sandbox) => sandbox.launch(&spec).map_err(|e| {
                ToolError::failed(format!(
                    "The command was not run: the sandbox cannot confine it: {e}"
                ))
            }),
            None => self
                .config
                .launcher
                .command(&spec)
                .map(|cmd| (cmd, SandboxCall::default()))
                .map_err(|e| ToolError::io(format!("could not prepare {}", shell.display()), e)),
        }
    }

    /// The session's sandbox now, for one call. A call the engine allowed
    /// *because* it would run in the sandbox (`autoAllowBashIfSandboxed`)
    /// is refused when the sandbox no longer applies to it — its settings
    /// changed between the decision and the start — rather than run
    /// unconfined without having asked.
    fn sandbox_for_call(
        &self,
        input: &BashInput,
        ctx: &gatehouse_core::ToolUseContext,
    ) -> Result<BashSandbox, ToolError> {
        let sandbox = self.config.sandbox.current();
        let confined = sandbox
            .launcher_for(&input.command, input.dangerously_disable_sandbox)
            .is_some();
        if !confined && sandboxed::allowed_because_sandboxed(ctx) {
            return Err(ToolError::failed(
                "The command was not run: it was allowed without asking because it would run in the \
                 sandbox (autoAllowBashIfSandboxed), and the sandbox's settings changed before it \
                 started, so it would now run outside it. Run it again to have it decided anew.",
            ));
        }
        Ok(sandbox)
    }

    /// `run_in_background`: starts a task and answers with its id at once.
    /// A `cd` in a background command does not carry over.
    fn start_background(
        &self,
        input: &BashInput,
        cx: &CallContext<'_>,
        shell: &Path,
        dir: PathBuf,
        roots: &[PathBuf],
        mut notes: Vec<String>,
    ) -> Result<ToolResult<BashOutput>, ToolError> {
        let sandbox = self.sandbox_for_call(input, cx.ctx)?;
        let (cmd, call) =
            self.launch(input, &sandbox, shell, Path::new("/dev/null"), &dir, roots)?;
        let info = self
            .tasks
            .start_keeping(
                cmd,
                &input.command,
                input.description.clone(),
                Some(cx.tool_use_id.to_owned()),
                Box::new(call),
            )
            .map_err(|e| ToolError::failed(e.to_string()))?;
        notes.insert(
            0,
            format!(
                "Command running in the background with task id {}. Its output is being written to {}. \
                 Read it with TaskOutput (task_id \"{}\"); stop it with TaskStop.",
                info.task_id,
                info.output_path.display(),
                info.task_id
            ),
        );
        Ok(ToolResult::new(BashOutput {
            output: String::new(),
            outcome: BashOutcome::Background,
            exit_code: None,
            signal: None,
            termination: None,
            total_bytes: 0,
            elided_bytes: 0,
            output_path: Some(info.output_path.display().to_string()),
            cwd: dir.display().to_string(),
            notes,
            task_id: Some(info.task_id),
            network: Vec::new(),
            blocked: Vec::new(),
            blocked_omitted: 0,
        }))
    }

    /// Turns how the command ended into the output.
    fn finish(
        &self,
        end: RunEnd,
        recorder: &OutputRecorder,
        cwd: PathBuf,
        mut notes: Vec<String>,
    ) -> BashOutput {
        let rendered = recorder.render();
        let grace = self.config.grace;
        let (outcome, termination) = match &end.stopped {
            None => (BashOutcome::Exited, None),
            Some((StopCause::Timeout(after), how)) => (
                BashOutcome::TimedOut,
                Some(format!(
                    "Command timed out after {} ms: {}.",
                    after.as_millis(),
                    how.describe(grace)
                )),
            ),
            Some((StopCause::Interrupted | StopCause::Requested(_), how)) => (
                BashOutcome::Interrupted,
                Some(format!("Command was interrupted: {}.", how.describe(grace))),
            ),
        };
        if let Some(how) = end.leftovers
            && how != Termination::AlreadyGone
        {
            notes.push(format!(
                "The command left processes running after the shell exited; they were stopped ({}). Use run_in_background for long-running processes.",
                how.describe(grace)
            ));
        }
        if let Some(err) = recorder.write_error() {
            notes.push(format!("The output file is incomplete: {err}"));
        }
        let mut output = rendered.text;
        if output.ends_with('\n') {
            output.pop();
        }
        BashOutput {
            output,
            outcome,
            exit_code: end.exit_code,
            signal: end.signal,
            termination,
            total_bytes: recorder.total(),
            elided_bytes: rendered.elided_bytes,
            output_path: recorder
                .path()
                .filter(|p| p.is_file())
                .map(|p| p.display().to_string()),
            cwd: cwd.display().to_string(),
            notes,
            task_id: None,
            network: Vec::new(),
            blocked: Vec::new(),
            blocked_omitted: 0,
        }
    }
}

/// Refuses commands no shell can run.
pub fn validate_command(command: &str) -> Result<(), ToolError> {
    if command.trim().is_empty() {
        return Err(ToolError::invalid("the command is empty"));
    }
    if command.contains('\0') {
        return Err(ToolError::invalid(
            "the command contains a NUL byte, which cannot be passed to a shell",
        ));
    }
    if command.len() > MAX_COMMAND_BYTES {
        return Err(ToolError::invalid(format!(
            "the command is {} bytes long; at most {MAX_COMMAND_BYTES} are accepted (write a script file and run that instead)",
            command.len()
        )));
    }
    Ok(())
}
