//! A small JSON-RPC client for the `vermas lsp` tests: it spawns the real binary with
//! piped stdio and speaks Content-Length framed messages to it.
#![allow(dead_code)]

use crate::common::LEAKY_ENV;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest wait for one message (checks run on a busy two-core machine).
const WAIT: Duration = Duration::from_secs(120);

/// A running `vermas lsp` and what it has said.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Notifications (and stray messages) received while waiting for something else.
    backlog: Vec<Value>,
    next_id: i64,
    stderr: Arc<Mutex<String>>,
}

impl Client {
    /// Starts `vermas lsp` in `dir` with a clean environment.
    pub fn start(dir: &Path) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vermas"));
        cmd.arg("lsp").current_dir(dir);
        for var in LEAKY_ENV {
            cmd.env_remove(var);
        }
        let mut child = cmd
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start vermas lsp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(msg) = read_frame(&mut reader) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err_pipe = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err_pipe.read_to_string(&mut text);
            sink.lock().unwrap().push_str(&text);
        });
        Client {
            stdin: child.stdin.take(),
            child,
            incoming,
            backlog: Vec::new(),
            next_id: 1,
            stderr,
        }
    }

    /// Starts the server in `repo` and completes the handshake with `root` as rootUri;
    /// returns the server's capabilities.
    pub fn initialised(repo: &Path) -> (Client, Value) {
        let mut c = Client::start(repo);
        let reply = c.request(
            "initialize",
            json!({"processId": null, "rootUri": file_uri(repo), "capabilities": {}}),
        );
        c.notify("initialized", json!({}));
        (c, reply["result"]["capabilities"].clone())
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Sends one JSON-RPC message with its Content-Length header.
    pub fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.send_raw(frame.as_bytes());
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns the whole response (`result` or `error`), keeping what
    /// else arrives meanwhile.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// The first message (kept ones first) that `wanted` accepts; the others stay kept.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if wanted(&m) => return m,
                Ok(m) => self.backlog.push(m),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no awaited message in {WAIT:?}; got {:#?}\nstderr: {}",
                    self.backlog,
                    self.stderr()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the server closed its output; got {:#?}\nstderr: {}",
                    self.backlog,
                    self.stderr()
                ),
            }
        }
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Opens `text` as the buffer of `uri` and returns its first diagnostics.
    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        );
        self.diagnostics(uri)
    }

    /// The messages received but not awaited yet.
    pub fn kept(&self) -> &[Value] {
        &self.backlog
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Closes stdin and waits (bounded) for the process; its exit code.
    pub fn wait_exit(&mut self) -> Option<i32> {
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "vermas lsp did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one Content-Length framed JSON message; `None` at the end of the stream.
pub fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `file://` URI of an absolute path (test paths need no escaping).
pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
