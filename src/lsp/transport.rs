//! LSP's framing on stdio, read and written by vermas itself: `Content-Length` headers,
//! then a body of at most [`MAX_BODY`] bytes. A frame that cannot be read (no or a bad
//! header, a body that is not JSON or not a JSON-RPC message, one over the limit) is
//! answered with a JSON-RPC error and the stream is read on from the next header (an
//! announced body over the limit is never waited for): lsp-server's own reader ends
//! the conversation at the first one, and reads any announced length into memory.

use lsp_server::Message;
use serde_json::{Value, json};
use std::io::{self, BufRead, Read, Write};

/// The largest message body read, in bytes: far above any spec an editor sends.
pub const MAX_BODY: u64 = 64 * 1024 * 1024;

/// The longest header line kept; the rest of a longer one is skipped.
const MAX_HEADER_LINE: u64 = 8 * 1024;

/// JSON-RPC's "parse error": the frame or its JSON cannot be read.
const PARSE_ERROR: i32 = -32700;

/// JSON-RPC's "invalid request": JSON that is not a message, or a message too large.
const INVALID_REQUEST: i32 = -32600;

/// What the next frame of the stream held.
#[derive(Debug)]
pub enum Frame {
    /// A message.
    Message(Message),
    /// Something that is not a message, to answer with a JSON-RPC error.
    Bad {
        /// The request's id when one could be read, else null.
        id: Value,
        /// The JSON-RPC error code.
        code: i32,
        /// What is wrong.
        message: String,
    },
    /// The stream ended.
    End,
}

impl Frame {
    /// A frame that cannot be read at all (no id to answer to).
    fn unreadable(message: impl Into<String>) -> Frame {
        Frame::Bad {
            id: Value::Null,
            code: PARSE_ERROR,
            message: message.into(),
        }
    }
}

/// Reads frames one after the other from `input`.
pub struct FrameReader<R> {
    /// The stream.
    input: R,
    /// True once the stream ended.
    ended: bool,
}

impl<R: BufRead> FrameReader<R> {
    /// A reader at the start of `input`.
    pub fn new(input: R) -> FrameReader<R> {
        FrameReader {
            input,
            ended: false,
        }
    }

    /// The next frame. Text before a `Content-Length` header (what is left of a frame that
    /// could not be read) is passed over, so the stream is read on from the next frame.
    pub fn next_frame(&mut self) -> Frame {
        if self.ended {
            return Frame::End;
        }
        let mut length: Option<std::result::Result<u64, String>> = None;
        let mut any = false;
        loop {
            let Some(line) = self.header_line() else {
                return if any {
                    self.ended = true;
                    Frame::unreadable("the stream ended inside a message's headers")
                } else {
                    self.end()
                };
            };
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if any {
                    break;
                }
                // Blank lines between messages are nothing.
                continue;
            }
            any = true;
            if let Some(value) = content_length(line) {
                length = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("Content-Length '{value}' is not a number")),
                );
            }
        }
        match length {
            None => Frame::unreadable("a message without a Content-Length header"),
            Some(Err(message)) => Frame::unreadable(message),
            // Never read (nor waited for): whatever of it follows is passed over as text
            // before the next header, so the stream goes on at the next message.
            Some(Ok(size)) if size > MAX_BODY => Frame::Bad {
                id: Value::Null,
                code: INVALID_REQUEST,
                message: format!(
                    "a message of {size} bytes is over vermas lsp's limit of {MAX_BODY} \
                     bytes: passed over, read on from the next header"
                ),
            },
            Some(Ok(size)) => self.body(size),
        }
    }

    /// The frame of a body of `size` bytes.
    fn body(&mut self, size: u64) -> Frame {
        let mut body = Vec::new();
        if let Err(e) = (&mut self.input).take(size).read_to_end(&mut body) {
            self.ended = true;
            return Frame::unreadable(format!("the message body cannot be read: {e}"));
        }
        if (body.len() as u64) < size {
            self.ended = true;
            return Frame::unreadable(format!(
                "the stream ended {} bytes into a message of {size}",
                body.len()
            ));
        }
        parse(&body)
    }

    /// One header line with its line break (at most [`MAX_HEADER_LINE`] bytes of it are
    /// kept); `None` at the end of the stream.
    fn header_line(&mut self) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        match (&mut self.input)
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        if !line.ends_with(b"\n") && line.len() as u64 == MAX_HEADER_LINE {
            // Skip the rest of an over-long line.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut self.input)
                    .take(MAX_HEADER_LINE)
                    .read_until(b'\n', &mut rest)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) if rest.ends_with(b"\n") => break,
                    Ok(_) => {}
                }
            }
        }
        Some(line)
    }

    /// The end of the stream.
    fn end(&mut self) -> Frame {
        self.ended = true;
        Frame::End
    }
}

/// The value of a `Content-Length` header on `line` (the header name in any case, after
/// whatever text precedes it on the line).
fn content_length(line: &str) -> Option<&str> {
    const NAME: &str = "content-length:";
    let at = line.to_ascii_lowercase().find(NAME)?;
    Some(line[at + NAME.len()..].trim())
}

/// A body read as a JSON-RPC message.
fn parse(body: &[u8]) -> Frame {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Frame::unreadable(format!("the message is not JSON: {e}")),
    };
    let id = value
        .get("id")
        .filter(|id| id.is_number() || id.is_string())
        .cloned()
        .unwrap_or(Value::Null);
    match serde_json::from_value::<Message>(value) {
        Ok(msg) => Frame::Message(msg),
        Err(e) => Frame::Bad {
            id,
            code: INVALID_REQUEST,
            message: format!("not a JSON-RPC request, response or notification: {e}"),
        },
    }
}

/// Writes `msg` to stdout as one frame; other threads' frames come before or after it,
/// never inside. An error means the client has gone.
pub fn write_message(msg: &Message) -> io::Result<()> {
    msg.write(&mut io::stdout().lock())
}

/// Writes the JSON-RPC error answering a frame that could not be read.
pub fn write_error(id: &Value, code: i32, message: &str) -> io::Result<()> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
    .to_string();
    let mut out = io::stdout().lock();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every frame of `input`, as `M`, `E<code>` or `End`.
    fn frames(input: &[u8]) -> Vec<String> {
        let mut r = FrameReader::new(input);
        let mut out = Vec::new();
        loop {
            match r.next_frame() {
                Frame::Message(_) => out.push("M".to_string()),
                Frame::Bad { code, .. } => out.push(format!("E{code}")),
                Frame::End => {
                    out.push("End".into());
                    return out;
                }
            }
        }
    }

    const EXIT: &str = "Content-Length: 33\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";

    #[test]
    fn bad_frames_are_answered_and_the_stream_read_on() {
        assert_eq!(frames(EXIT.as_bytes()), ["M", "End"]);
        let bad_json = format!("Content-Length: 5\r\n\r\nnope!{EXIT}");
        assert_eq!(frames(bad_json.as_bytes()), ["E-32700", "M", "End"]);
        let no_header = format!("X-Other: 1\r\n\r\n{{}}{EXIT}");
        assert_eq!(frames(no_header.as_bytes()), ["E-32700", "M", "End"]);
        let not_rpc = format!("Content-Length: 7\r\n\r\n{{\"a\":1}}{EXIT}");
        assert_eq!(frames(not_rpc.as_bytes()), ["E-32600", "M", "End"]);
        let huge = format!("Content-Length: 99999999999\r\n\r\n{{}}{EXIT}");
        assert_eq!(frames(huge.as_bytes()), ["E-32600", "M", "End"]);
        let short = "Content-Length: 50\r\n\r\n{\"jsonrpc\":";
        assert_eq!(frames(short.as_bytes()), ["E-32700", "End"]);
        let long_line = format!("{}\r\n\r\n{EXIT}", "x".repeat(100_000));
        assert_eq!(frames(long_line.as_bytes()), ["E-32700", "M", "End"]);
    }
}
