//! AskUserQuestion: the model asks the user 1–4 questions, each with 2–4
//! options (Claude Code's input shape); the user's answers come back as the
//! tool_result. Never auto-approved: the permission ask is the question.

use std::collections::HashSet;

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::ask::UserReply;
use gatehouse_core::context::ToolUseContext;
use gatehouse_core::names::ASK_USER_QUESTION;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::interaction::{
    Interaction, InteractionReply, Question, QuestionAnswer, QuestionOption,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// At most this many characters per question, header, label or description:
/// the dialog must stay readable, and the input is the model's.
const MAX_TEXT_CHARS: usize = 2_000;

/// One option, as the model writes it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptionInput {
    /// The display text of the choice the user picks (1-5 words).
    pub label: String,
    /// What the option means or what happens if it is chosen.
    pub description: String,
}

/// One question, as the model writes it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionInput {
    /// The complete question, ending with a question mark.
    pub question: String,
    /// A very short label shown as a chip (max 12 characters), unique among
    /// the questions, e.g. "Auth method".
    pub header: String,
    /// The 2-4 choices. The user can always type an "Other" answer instead,
    /// so do not add one.
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<OptionInput>,
    /// Allow several options to be picked.
    #[serde(rename = "multiSelect", default)]
    pub multi_select: bool,
}

/// AskUserQuestion's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserQuestionInput {
    /// The questions to ask (1-4).
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<QuestionInput>,
}

impl AskUserQuestionInput {
    /// The questions as the protocol carries them.
    pub fn to_questions(&self) -> Vec<Question> {
        self.questions
            .iter()
            .map(|q| Question {
                question: q.question.clone(),
                header: q.header.clone(),
                options: q
                    .options
                    .iter()
                    .map(|o| QuestionOption {
                        label: o.label.clone(),
                        description: o.description.clone(),
                    })
                    .collect(),
                multi_select: q.multi_select,
            })
            .collect()
    }
}

/// AskUserQuestion's output (PostToolUse hooks see it as JSON).
#[derive(Debug, Clone, Serialize)]
pub struct AskUserQuestionOutput {
    /// The questions asked.
    pub questions: Vec<Question>,
    /// The answers, one per question (empty when nobody answered).
    pub answers: Vec<QuestionAnswer>,
    /// Why nobody answered, when nobody did.
    pub unanswered: Option<String>,
}

/// AskUserQuestion.
#[derive(Debug, Clone, Copy, Default)]
pub struct AskUserQuestionTool;

#[async_trait]
impl TypedTool for AskUserQuestionTool {
    type Input = AskUserQuestionInput;
    type Output = AskUserQuestionOutput;

    fn name(&self) -> &str {
        ASK_USER_QUESTION
    }

    fn description(&self) -> &str {
        "Asks the user 1-4 multiple-choice questions and waits for the answers. Use it when you need \
         the user's preference or decision to continue (which approach, which library, what to \
         name something). Each question has a short unique header and 2-4 options with a \
         description; set multiSelect when several options may apply. The user can always answer \
         \"Other\" with their own text."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("ask the user a multiple choice question")
    }

    // Changes nothing; answering is the user's act, asked for every call.
    fn is_read_only(&self, _input: &AskUserQuestionInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &AskUserQuestionInput) -> bool {
        true
    }

    fn requires_user_interaction(&self) -> bool {
        true
    }

    fn interaction(&self, input: &AskUserQuestionInput) -> Option<Interaction> {
        Some(Interaction::Questions {
            questions: input.to_questions(),
        })
    }

    async fn validate_input(
        &self,
        input: &AskUserQuestionInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        validate_questions(input).map_err(ToolError::invalid)
    }

    async fn call(
        &self,
        input: AskUserQuestionInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<AskUserQuestionOutput>, ToolError> {
        let questions = input.to_questions();
        let (answers, unanswered) = match cx.ctx.extensions.get::<UserReply>() {
            Some(UserReply(InteractionReply::Answers { answers })) => {
                check_answers(&questions, answers).map_err(ToolError::invalid)?;
                (answers.clone(), None)
            }
            Some(UserReply(InteractionReply::Unanswered { reason })) => {
                (Vec::new(), Some(reason.clone()))
            }
            Some(UserReply(other)) => {
                return Err(ToolError::failed(format!(
                    "the reply to the questions was not an answer ({other:?})"
                )));
            }
            // Approved by something that does not know about questions
            // (an `--ask allow` style handler): nobody answered.
            None => (
                Vec::new(),
                Some("the prompt was approved without answers".to_owned()),
            ),
        };
        Ok(ToolResult::new(AskUserQuestionOutput {
            questions,
            answers,
            unanswered,
        }))
    }

    fn map_result(&self, output: &AskUserQuestionOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: result_text(output),
        }]
    }
}

/// The tool_result text: Claude Code's wording for answers.
pub fn result_text(output: &AskUserQuestionOutput) -> String {
    if let Some(reason) = &output.unanswered {
        return format!(
            "No answer to your questions: {reason}. Continue without the answers: decide what \
             you can on your own and say what you assumed."
        );
    }
    let pairs: Vec<String> = output
        .questions
        .iter()
        .zip(&output.answers)
        .map(|(q, a)| format!("\"{}\"=\"{}\"", q.question, answer_text(a)))
        .collect();
    format!(
        "User has answered your questions: {}. You can now continue with the user's answers in mind.",
        pairs.join(", ")
    )
}

/// One answer as the model reads it: the labels picked, then the "Other"
/// text, joined by ", ".
fn answer_text(answer: &QuestionAnswer) -> String {
    let mut parts: Vec<&str> = answer.selected.iter().map(String::as_str).collect();
    if let Some(other) = answer
        .other
        .as_deref()
        .map(str::trim)
        .filter(|o| !o.is_empty())
    {
        parts.push(other);
    }
    parts.join(", ")
}

/// The semantic checks the schema cannot express; every message names the
/// field (`questions[1].options[0].label`).
pub fn validate_questions(input: &AskUserQuestionInput) -> Result<(), String> {
    let n = input.questions.len();
    if !(1..=4).contains(&n) {
        return Err(format!("questions: expected 1 to 4 questions, got {n}"));
    }
    let mut headers = HashSet::new();
    let mut texts = HashSet::new();
    for (i, q) in input.questions.iter().enumerate() {
        let at = format!("questions[{i}]");
        non_empty(&q.question, &format!("{at}.question"))?;
        non_empty(&q.header, &format!("{at}.header"))?;
        if !headers.insert(q.header.trim().to_lowercase()) {
            return Err(format!(
                "{at}.header: \"{}\" is the header of an earlier question; headers must be unique",
                q.header
            ));
        }
        if !texts.insert(q.question.trim().to_owned()) {
            return Err(format!(
                "{at}.question: the same question is asked twice; questions must be unique"
            ));
        }
        let count = q.options.len();
        if !(2..=4).contains(&count) {
            return Err(format!(
                "{at}.options: expected 2 to 4 options, got {count}"
            ));
        }
        let mut labels = HashSet::new();
        for (j, o) in q.options.iter().enumerate() {
            non_empty(&o.label, &format!("{at}.options[{j}].label"))?;
            non_empty(&o.description, &format!("{at}.options[{j}].description"))?;
            if !labels.insert(o.label.trim().to_lowercase()) {
                return Err(format!(
                    "{at}.options[{j}].label: \"{}\" is the label of an earlier option; labels must be unique within a question",
                    o.label
                ));
            }
        }
    }
    Ok(())
}

fn non_empty(text: &str, field: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err(format!("{field}: must not be empty"));
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(format!(
            "{field}: {chars} characters is too long (at most {MAX_TEXT_CHARS})"
        ));
    }
    Ok(())
}

/// Checks a reply against the questions: one answer per question, in order,
/// by header; picked labels exist; one pick unless `multiSelect`; every
/// answer picks something or says something.
pub fn check_answers(questions: &[Question], answers: &[QuestionAnswer]) -> Result<(), String> {
    if answers.len() != questions.len() {
        return Err(format!(
            "answers: expected {} answer(s), one per question, got {}",
            questions.len(),
            answers.len()
        ));
    }
    for (i, (q, a)) in questions.iter().zip(answers).enumerate() {
        if a.header != q.header {
            return Err(format!(
                "answers[{i}].header: expected \"{}\", got \"{}\"",
                q.header, a.header
            ));
        }
        for label in &a.selected {
            if !q.options.iter().any(|o| &o.label == label) {
                return Err(format!(
                    "answers[{i}].selected: \"{label}\" is not an option of \"{}\"",
                    q.header
                ));
            }
        }
        if !q.multi_select && a.selected.len() > 1 {
            return Err(format!(
                "answers[{i}].selected: \"{}\" takes one option, got {}",
                q.header,
                a.selected.len()
            ));
        }
        let other = a.other.as_deref().is_some_and(|o| !o.trim().is_empty());
        if a.selected.is_empty() && !other {
            return Err(format!(
                "answers[{i}]: \"{}\" has no option picked and no \"Other\" text",
                q.header
            ));
        }
        if !q.multi_select && !a.selected.is_empty() && other {
            return Err(format!(
                "answers[{i}]: \"{}\" takes one answer: an option or \"Other\" text, not both",
                q.header
            ));
        }
    }
    Ok(())
}

/// Answers from `gatehouse-cli run --answer 'Header=Option'` pairs: the
/// header matches case-insensitively; a value that is an option's label
/// (case-insensitive) picks it, any other value is the "Other" text;
/// repeated pairs for a `multiSelect` question pick several. Returns the
/// headers that have no pair when some question is left unanswered.
pub fn scripted_answers(
    questions: &[Question],
    pairs: &[(String, String)],
) -> Result<Vec<QuestionAnswer>, Vec<String>> {
    let mut answers = Vec::new();
    let mut missing = Vec::new();
    for q in questions {
        let mut answer = QuestionAnswer {
            header: q.header.clone(),
            selected: Vec::new(),
            other: None,
        };
        for (_, value) in pairs
            .iter()
            .filter(|(h, _)| h.trim().eq_ignore_ascii_case(q.header.trim()))
        {
            let value = value.trim();
            match q
                .options
                .iter()
                .find(|o| o.label.eq_ignore_ascii_case(value))
            {
                Some(o) if q.multi_select || answer.selected.is_empty() => {
                    if !answer.selected.contains(&o.label) {
                        answer.selected.push(o.label.clone());
                    }
                }
                // A second pick of a one-answer question: the last wins.
                Some(o) => answer.selected = vec![o.label.clone()],
                None => answer.other = Some(value.to_owned()),
            }
        }
        if !q.multi_select && !answer.selected.is_empty() && answer.other.is_some() {
            answer.other = None;
        }
        if answer.selected.is_empty() && answer.other.is_none() {
            missing.push(q.header.clone());
        }
        answers.push(answer);
    }
    if missing.is_empty() {
        Ok(answers)
    } else {
        Err(missing)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn input(json: serde_json::Value) -> AskUserQuestionInput {
        serde_json::from_value(json).unwrap()
    }

    fn two_questions() -> AskUserQuestionInput {
        input(serde_json::json!({"questions": [
            {"question": "Which library?", "header": "Library", "multiSelect": false,
             "options": [{"label": "React", "description": "components"},
                         {"label": "Vue", "description": "templates"}]},
            {"question": "Which checks?", "header": "Checks", "multiSelect": true,
             "options": [{"label": "lint", "description": "eslint"},
                         {"label": "types", "description": "tsc"},
                         {"label": "tests", "description": "vitest"}]}
        ]}))
    }

    #[test]
    fn good_questions_pass() {
        assert_eq!(validate_questions(&two_questions()), Ok(()));
    }

    #[test]
    fn bad_questions_name_the_field() {
        let mut q = two_questions();
        q.questions[1].options[2].label = "LINT".into();
        let e = validate_questions(&q).unwrap_err();
        assert!(e.starts_with("questions[1].options[2].label:"), "{e}");
        assert!(e.contains("unique"), "{e}");

        let mut q = two_questions();
        q.questions[0].options.truncate(1);
        let e = validate_questions(&q).unwrap_err();
        assert_eq!(e, "questions[0].options: expected 2 to 4 options, got 1");

        let mut q = two_questions();
        q.questions[1].header = "library".into();
        let e = validate_questions(&q).unwrap_err();
        assert!(e.starts_with("questions[1].header:"), "{e}");

        let mut q = two_questions();
        q.questions[0].options[1].description = "  ".into();
        let e = validate_questions(&q).unwrap_err();
        assert_eq!(e, "questions[0].options[1].description: must not be empty");
    }

    #[test]
    fn scripted_answers_pick_labels_or_other() {
        let qs = two_questions().to_questions();
        let pairs = vec![
            ("library".to_owned(), "vue".to_owned()),
            ("Checks".to_owned(), "lint".to_owned()),
            ("Checks".to_owned(), "tests".to_owned()),
        ];
        let answers = scripted_answers(&qs, &pairs).unwrap();
        assert_eq!(answers[0].selected, vec!["Vue"]);
        assert_eq!(answers[1].selected, vec!["lint", "tests"]);
        assert_eq!(check_answers(&qs, &answers), Ok(()));

        let pairs = vec![("Library".to_owned(), "Svelte".to_owned())];
        assert_eq!(scripted_answers(&qs, &pairs).unwrap_err(), vec!["Checks"]);
    }

    #[test]
    fn the_result_reads_like_claude_code() {
        let qs = two_questions().to_questions();
        let output = AskUserQuestionOutput {
            answers: vec![
                QuestionAnswer {
                    header: "Library".into(),
                    selected: vec![],
                    other: Some("Svelte".into()),
                },
                QuestionAnswer {
                    header: "Checks".into(),
                    selected: vec!["lint".into(), "tests".into()],
                    other: None,
                },
            ],
            questions: qs,
            unanswered: None,
        };
        assert_eq!(
            result_text(&output),
            "User has answered your questions: \"Which library?\"=\"Svelte\", \
             \"Which checks?\"=\"lint, tests\". You can now continue with the user's answers in mind."
        );
    }

    #[test]
    fn replies_are_checked_against_the_questions() {
        let qs = two_questions().to_questions();
        let bad = vec![
            QuestionAnswer {
                header: "Library".into(),
                selected: vec!["React".into(), "Vue".into()],
                other: None,
            },
            QuestionAnswer {
                header: "Checks".into(),
                selected: vec!["lint".into()],
                other: None,
            },
        ];
        let e = check_answers(&qs, &bad).unwrap_err();
        assert!(e.starts_with("answers[0].selected:"), "{e}");
        let e = check_answers(&qs, &bad[..1]).unwrap_err();
        assert!(e.starts_with("answers: expected 2"), "{e}");
    }
}
