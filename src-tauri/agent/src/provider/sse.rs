//! An incremental Server-Sent Events parser.
//!
//! Hand-rolled rather than `eventsource-stream`: we need a hard limit on the
//! size of one event (a hostile or broken server must not grow a buffer
//! without bound), explicit errors for invalid UTF-8, and to feed it raw
//! chunks from any HTTP stream; the format itself is ~40 lines of the
//! WHATWG algorithm (`event:`, `data:` joined by `\n`, `:` comments, blank
//! line dispatches; `\n`, `\r\n` and `\r` line ends).
//!
//! [`drive`] is the one loop both HTTP providers stream with: body chunks
//! in, parsed events through the provider's [`SseDecoder`], provider
//! events out, with the same handling of parse errors and dropped
//! connections.

use std::collections::VecDeque;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use gatehouse_protocol::event::SessionErrorKind;

use crate::provider::{EventStream, ProviderError, StreamEvent};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The `data:` lines joined by `\n`.
    pub data: String,
}

/// Feeds bytes in, takes events out.
#[derive(Debug)]
pub struct SseParser {
    line: Vec<u8>,
    event: Option<String>,
    data: String,
    has_data: bool,
    pending_cr: bool,
    max_event_bytes: usize,
}

impl SseParser {
    /// A parser refusing events (or lines) over `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        Self {
            line: Vec::new(),
            event: None,
            data: String::new(),
            has_data: false,
            pending_cr: false,
            max_event_bytes,
        }
    }

    /// Parses `chunk`, appending complete events to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        for &b in chunk {
            if self.pending_cr {
                self.pending_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(out)?,
                b'\r' => {
                    self.pending_cr = true;
                    self.end_line(out)?;
                }
                _ => {
                    self.line.push(b);
                    if self.line.len() + self.data.len() > self.max_event_bytes {
                        return Err(format!(
                            "an SSE event exceeds the limit of {} bytes",
                            self.max_event_bytes
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether a partial event is buffered (the stream ended mid-event).
    pub fn has_partial(&self) -> bool {
        !self.line.is_empty() || self.has_data
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), String> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: self.event.take().unwrap_or_else(|| "message".into()),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event = None;
            self.has_data = false;
            return Ok(());
        }
        let line = String::from_utf8(line).map_err(|_| "an SSE line is not valid UTF-8")?;
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            // `id`, `retry` and unknown fields do not matter here.
            _ => {}
        }
        Ok(())
    }
}

/// What a decoder produced so far: the events still to hand out, and
/// whether the reply is over (a stop, or a failure).
#[derive(Debug, Default)]
pub(crate) struct Emitted {
    events: VecDeque<Result<StreamEvent, ProviderError>>,
    done: bool,
}

impl Emitted {
    /// Queues an event.
    pub(crate) fn emit(&mut self, event: StreamEvent) {
        self.events.push_back(Ok(event));
    }

    /// Marks the reply complete: nothing after this is decoded.
    pub(crate) fn finish(&mut self) {
        self.done = true;
    }

    /// Queues an error and ends the reply.
    fn fail(&mut self, e: ProviderError) {
        self.events.push_back(Err(e));
        self.done = true;
    }
}

/// A provider's wire format: SSE events → [`StreamEvent`]s.
pub(crate) trait SseDecoder: Send + 'static {
    /// The provider's name, which starts its error messages.
    fn provider(&self) -> &'static str;

    /// Decodes one event into `out`. An error ends the reply with it.
    fn decode(&mut self, event: &SseEvent, out: &mut Emitted) -> Result<(), ProviderError>;

    /// The body ended before the decoder finished the reply. By default
    /// nothing is added: the loop reports a stream that ends without a stop.
    fn end_of_body(&mut self, _out: &mut Emitted) {}
}

/// Streams `body` through an SSE parser (events up to `max_event_bytes`)
/// and `decoder`: events come out as soon as the chunk that completes them
/// arrives; a parse error is a malformed stream, a broken connection a
/// retryable network error, and nothing is read after the reply is done.
pub(crate) fn drive<D: SseDecoder>(
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    decoder: D,
    max_event_bytes: usize,
) -> EventStream {
    let state = (
        body,
        SseParser::new(max_event_bytes),
        decoder,
        Emitted::default(),
    );
    futures::stream::unfold(
        state,
        |(mut body, mut parser, mut decoder, mut out)| async move {
            loop {
                if let Some(item) = out.events.pop_front() {
                    return Some((item, (body, parser, decoder, out)));
                }
                if out.done {
                    return None;
                }
                match body.next().await {
                    Some(Ok(chunk)) => {
                        let mut events = Vec::new();
                        let fed = parser.feed(&chunk, &mut events);
                        for event in events {
                            if out.done {
                                break;
                            }
                            if let Err(e) = decoder.decode(&event, &mut out) {
                                out.fail(e);
                            }
                        }
                        if let Err(e) = fed
                            && !out.done
                        {
                            out.fail(ProviderError::malformed(format!(
                                "{}: {e}",
                                decoder.provider()
                            )));
                        }
                    }
                    Some(Err(e)) => out.fail(ProviderError::retryable(
                        SessionErrorKind::Network,
                        format!(
                            "{}: the connection dropped mid-reply: {e}",
                            decoder.provider()
                        ),
                    )),
                    None => {
                        decoder.end_of_body(&mut out);
                        out.done = true;
                    }
                }
            }
        },
    )
    .boxed()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn events_split_anywhere_reassemble() {
        let text = "event: a\ndata: {\"x\":\ndata: 1}\n\n: comment\r\nevent: b\r\ndata: é\r\n\r\ndata:raw\r\r";
        let whole = parse_chunks(&[text.as_bytes()]);
        assert_eq!(whole.len(), 3);
        assert_eq!(whole[0].event, "a");
        assert_eq!(whole[0].data, "{\"x\":\n1}");
        assert_eq!(whole[1].data, "é");
        assert_eq!(whole[2].event, "message");
        assert_eq!(whole[2].data, "raw");
        let bytes = text.as_bytes();
        for split in 1..bytes.len() {
            let (a, b) = bytes.split_at(split);
            assert_eq!(parse_chunks(&[a, b]), whole, "split at {split}");
        }
    }

    #[test]
    fn oversized_events_and_bad_utf8_are_errors() {
        let mut p = SseParser::new(16);
        let mut out = Vec::new();
        let err = p.feed(&[b'd'; 40], &mut out).unwrap_err();
        assert!(err.contains("16 bytes"), "{err}");
        let mut p = SseParser::new(16);
        assert!(p.feed(b"data: \xff\n", &mut out).is_err());
        let mut p = SseParser::new(64);
        p.feed(b"data: x", &mut out).unwrap();
        assert!(p.has_partial());
    }
}
