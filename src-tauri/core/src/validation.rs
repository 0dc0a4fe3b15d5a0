//! Input validation against a tool's JSON Schema (pipeline stage 3), and
//! the error text the model gets when it fails.
//!
//! Typed built-ins and MCP tools go through the same validator (the
//! `jsonschema` crate), so both produce the same kind of message: every bad
//! field by path, what is wrong with it, and the expected shape of the input.

use std::fmt;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

/// At most this many issues are listed; the rest are counted.
const MAX_ISSUES: usize = 20;
/// Values quoted in messages are cut to this many characters.
const MAX_QUOTED_CHARS: usize = 80;

/// A tool's compiled input schema.
pub struct SchemaValidator {
    compiled: Result<jsonschema::Validator, String>,
    expected: String,
}

impl fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaValidator")
            .field("compiled", &self.compiled.is_ok())
            .field("expected", &self.expected)
            .finish()
    }
}

impl SchemaValidator {
    /// Compiles `schema`. A schema that does not compile is remembered as
    /// such and every input is then refused (fail closed): a broken MCP
    /// server schema must not mean "anything goes".
    pub fn new(schema: &Value) -> Self {
        Self {
            compiled: jsonschema::validator_for(schema).map_err(|e| e.to_string()),
            expected: expected_shape(schema),
        }
    }

    /// The expected shape of the input, e.g. `{file_path: string, limit?: integer}`.
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// Checks `input`; on failure, the error lists every bad field.
    pub fn validate(&self, tool_name: &str, input: &Value) -> Result<(), InputValidationError> {
        let validator = match &self.compiled {
            Ok(v) => v,
            Err(e) => {
                return Err(InputValidationError {
                    tool: tool_name.to_owned(),
                    issues: vec![FieldIssue {
                        path: "(schema)".into(),
                        problem: format!(
                            "the tool's input schema is invalid, so no input is accepted: {e}"
                        ),
                    }],
                    omitted: 0,
                    expected: self.expected.clone(),
                });
            }
        };
        let mut issues = Vec::new();
        let mut omitted = 0;
        for error in validator.iter_errors(input) {
            for issue in describe(&error, input) {
                if issues.len() < MAX_ISSUES {
                    issues.push(issue);
                } else {
                    omitted += 1;
                }
            }
        }
        if issues.is_empty() {
            return Ok(());
        }
        Err(InputValidationError {
            tool: tool_name.to_owned(),
            issues,
            omitted,
            expected: self.expected.clone(),
        })
    }
}

/// One bad field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldIssue {
    /// Dotted path of the field (`edits[0].old_string`), `(input)` for the
    /// input as a whole.
    pub path: String,
    /// What is wrong with it.
    pub problem: String,
}

/// The input did not match the schema; its `Display` is the text the model
/// receives.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InputValidationError {
    tool: String,
    issues: Vec<FieldIssue>,
    omitted: usize,
    expected: String,
}

impl InputValidationError {
    /// The bad fields, in the validator's order.
    pub fn issues(&self) -> &[FieldIssue] {
        &self.issues
    }

    /// The expected shape of the input.
    pub fn expected(&self) -> &str {
        &self.expected
    }
}

impl fmt::Display for InputValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "InputValidationError: {} was called with invalid input:",
            self.tool
        )?;
        for issue in &self.issues {
            writeln!(f, "  - {}: {}", issue.path, issue.problem)?;
        }
        if self.omitted > 0 {
            writeln!(f, "  … and {} more", self.omitted)?;
        }
        write!(
            f,
            "Expected input: {} (fields marked ? are optional)",
            self.expected
        )
    }
}

fn describe(error: &jsonschema::ValidationError<'_>, input: &Value) -> Vec<FieldIssue> {
    let pointer = error.instance_path().as_str();
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            vec![FieldIssue {
                path: join_path(pointer, &name),
                problem: "required field is missing".into(),
            }]
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|name| FieldIssue {
                path: join_path(pointer, name),
                problem: "unexpected field (not in the schema)".into(),
            })
            .collect(),
        _ => {
            let got = input
                .pointer(pointer)
                .map(|v| format!(" (got {})", quote(v)))
                .unwrap_or_default();
            vec![FieldIssue {
                path: dotted_path(pointer),
                problem: format!("{}{got}", error.masked()),
            }]
        }
    }
}

/// A JSON value named by its type and, when short, its text.
fn quote(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => return "an array".into(),
        Value::Object(_) => return "an object".into(),
    };
    let text = value.to_string();
    if text.chars().count() > MAX_QUOTED_CHARS {
        let cut: String = text.chars().take(MAX_QUOTED_CHARS).collect();
        format!("{kind} {cut}…")
    } else {
        format!("{kind} {text}")
    }
}

/// `/edits/0/old_string` → `edits[0].old_string`; the root → `(input)`.
pub fn dotted_path(pointer: &str) -> String {
    if pointer.is_empty() {
        return "(input)".into();
    }
    let mut out = String::new();
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

fn join_path(parent_pointer: &str, name: &str) -> String {
    if parent_pointer.is_empty() {
        name.to_owned()
    } else {
        format!("{}.{name}", dotted_path(parent_pointer))
    }
}

/// A one-line rendering of the shape a schema describes, e.g.
/// `{file_path: string, limit?: integer}`.
pub fn expected_shape(schema: &Value) -> String {
    render(schema, schema, 0)
}

fn render(schema: &Value, root: &Value, depth: usize) -> String {
    let Value::Object(map) = schema else {
        return match schema {
            Value::Bool(false) => "nothing".into(),
            _ => "any".into(),
        };
    };
    if let Some(Value::String(reference)) = map.get("$ref") {
        let target = reference.strip_prefix('#').and_then(|p| root.pointer(p));
        return match target {
            Some(t) if depth < 3 => render(t, root, depth + 1),
            _ => reference.rsplit('/').next().unwrap_or("object").to_owned(),
        };
    }
    if let Some(c) = map.get("const") {
        return c.to_string();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = map.get(key) {
            return options
                .iter()
                .map(|o| render(o, root, depth + 1))
                .collect::<Vec<_>>()
                .join(" | ");
        }
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if map.contains_key("properties") => vec!["object"],
        _ => vec![],
    };
    if types.is_empty() {
        return "any".into();
    }
    types
        .iter()
        .map(|t| match *t {
            "object" => render_object(map, root, depth),
            "array" => match map.get("items") {
                Some(items) if depth < 3 => format!("array of {}", render(items, root, depth + 1)),
                _ => "array".into(),
            },
            other => other.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn render_object(map: &serde_json::Map<String, Value>, root: &Value, depth: usize) -> String {
    let Some(Value::Object(props)) = map.get("properties") else {
        return "object".into();
    };
    if depth >= 3 {
        return "object".into();
    }
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = props
        .iter()
        .map(|(name, sub)| {
            let opt = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{opt}: {}", render(sub, root, depth + 1))
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer"},
                "mode": {"enum": ["text", "bytes"]}
            },
            "required": ["file_path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn names_every_bad_field_what_is_wrong_and_the_expected_shape() {
        let v = SchemaValidator::new(&read_schema());
        let err = v
            .validate(
                "Read",
                &json!({"limit": "ten", "offset": -1, "colour": "red"}),
            )
            .unwrap_err();
        let paths: Vec<&str> = err.issues().iter().map(|i| i.path.as_str()).collect();
        for p in ["file_path", "limit", "offset", "colour"] {
            assert!(paths.contains(&p), "{p} missing from {paths:?}");
        }
        let text = err.to_string();
        assert!(
            text.contains("Read was called with invalid input"),
            "{text}"
        );
        assert!(
            text.contains("file_path: required field is missing"),
            "{text}"
        );
        assert!(
            text.contains("limit:")
                && text.contains("integer")
                && text.contains("got string \"ten\""),
            "{text}"
        );
        assert!(text.contains("colour: unexpected field"), "{text}");
        assert!(
            text.contains(r#"Expected input: {file_path: string, limit?: integer, mode?: "text" | "bytes", offset?: integer}"#),
            "{text}"
        );
    }

    #[test]
    fn valid_input_passes() {
        let v = SchemaValidator::new(&read_schema());
        assert!(v.validate("Read", &json!({"file_path": "/a"})).is_ok());
    }

    #[test]
    fn nested_paths_are_dotted() {
        let schema = json!({
            "type": "object",
            "properties": {"edits": {"type": "array", "items": {
                "type": "object",
                "properties": {"old_string": {"type": "string"}},
                "required": ["old_string"]
            }}},
            "required": ["edits"]
        });
        let err = SchemaValidator::new(&schema)
            .validate(
                "MultiEdit",
                &json!({"edits": [{"old_string": "a"}, {"old_string": 3}, {}]}),
            )
            .unwrap_err();
        let paths: Vec<&str> = err.issues().iter().map(|i| i.path.as_str()).collect();
        assert!(paths.contains(&"edits[1].old_string"), "{paths:?}");
        assert!(paths.contains(&"edits[2].old_string"), "{paths:?}");
        assert!(
            err.expected()
                .contains("edits: array of {old_string: string}"),
            "{}",
            err.expected()
        );
    }

    #[test]
    fn an_uncompilable_schema_refuses_every_input() {
        let v = SchemaValidator::new(&json!({"type": "no-such-type"}));
        let err = v.validate("mcp__x__y", &json!({})).unwrap_err();
        assert!(err.to_string().contains("schema is invalid"), "{err}");
    }

    #[test]
    fn dotted_path_unescapes_pointer_segments() {
        assert_eq!(dotted_path(""), "(input)");
        assert_eq!(dotted_path("/a~1b/0/c~0d"), "a/b[0].c~d");
    }
}
