//! `vermas lsp`: a language server over stdio for spec markdown (`specs/**/*.md`): links
//! to check functions, `spec check` findings and failed runs as diagnostics, the last
//! result on hover, and "Run this criterion". This file holds the message loop and the
//! dispatch; each capability has its own file.

mod commands;
mod diagnostics;
mod hover;
mod last;
mod links;
mod position;
mod state;
mod transport;
mod uri;

pub use commands::RUN_CRITERION;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionProviderCapability, CodeLensOptions, DocumentLinkOptions, ExecuteCommandOptions,
    HoverProviderCapability, InitializeResult, MessageType, SaveOptions, ServerCapabilities,
    ServerInfo, ShowMessageParams, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use state::Server;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use vermas_core::error::{Error, Result};

/// How the conversation with the client ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after `shutdown`: exit code 0.
    Clean,
    /// `exit` without `shutdown`: exit code 1, as the protocol asks.
    ExitWithoutShutdown,
    /// The client's stream ended (or broke) without `exit`.
    Disconnected,
}

/// Serves the client on stdin/stdout until it says `exit` or its stream ends; the
/// workspace is found from `initialize`'s folders, else from `cwd`. Returns the exit code
/// at once, also while a criterion runs (its check ends with vermas, see
/// [`vermas_core::check`]). A frame that is not a message is answered with a JSON-RPC error
/// and the stream read on.
pub fn serve_stdio(cwd: &Path) -> Result<i32> {
    let (tx, incoming) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("vermas-lsp-reader".into())
        .spawn(move || {
            let mut reader = transport::FrameReader::new(std::io::stdin().lock());
            loop {
                match reader.next_frame() {
                    transport::Frame::Message(msg) => {
                        if tx.send(msg).is_err() {
                            return;
                        }
                    }
                    transport::Frame::Bad { id, code, message } => {
                        // The client may have gone: nothing to tell then.
                        let _ = transport::write_error(&id, code, &message);
                    }
                    transport::Frame::End => return,
                }
            }
        })
        .map_err(|e| Error::Invalid(format!("lsp: cannot start the reader thread: {e}")))?;
    let outbox: state::Outbox = Arc::new(|msg| {
        // The editor may have gone: nothing to tell then.
        let _ = transport::write_message(&msg);
    });
    Ok(match serve(incoming, outbox, cwd) {
        Ending::Clean => 0,
        Ending::ExitWithoutShutdown | Ending::Disconnected => 1,
    })
}

/// Runs the protocol on the `incoming` messages, answering through `outbox`: the
/// handshake, then messages until `exit` or the end of `incoming`.
pub fn serve(incoming: Receiver<Message>, outbox: state::Outbox, cwd: &Path) -> Ending {
    let Some((id, params)) = await_initialize(&incoming, &outbox) else {
        return Ending::Disconnected;
    };
    let root = root_of(&params).unwrap_or_else(|| cwd.to_path_buf());
    let server = Arc::new(Server::new(&root, outbox));
    server.send(Response::new_ok(id, initialize_result()));
    let mut shut_down = false;
    // Documents whose diagnostics an edit made due: published once no message waits, so a
    // burst of edits is answered for its last version only.
    let mut due: Vec<lsp_types::Uri> = Vec::new();
    loop {
        let msg = match incoming.try_recv() {
            Ok(msg) => msg,
            Err(std::sync::mpsc::TryRecvError::Empty) if !due.is_empty() => {
                for uri in due.drain(..) {
                    diagnostics::publish(&server, &uri);
                }
                continue;
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => match incoming.recv() {
                Ok(msg) => msg,
                Err(_) => break,
            },
            Err(std::sync::mpsc::TryRecvError::Disconnected) => break,
        };
        match msg {
            Message::Request(r) if shut_down => server.send(Response::new_err(
                r.id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".into(),
            )),
            Message::Request(r) if r.method == req::Shutdown::METHOD => {
                shut_down = true;
                server.send(Response::new_ok(r.id, ()));
            }
            Message::Request(r) => {
                let id = r.id.clone();
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| request(&server, r))) {
                    server.send(internal_error(id, &panic));
                }
            }
            Message::Notification(n) if n.method == note::Exit::METHOD => {
                return if shut_down {
                    Ending::Clean
                } else {
                    Ending::ExitWithoutShutdown
                };
            }
            Message::Notification(n) => {
                // A notification has no reply: one whose handler panicked is dropped, the server goes on.
                if let Ok(Some(uri)) = catch_unwind(AssertUnwindSafe(|| notification(&server, n)))
                    && !due.contains(&uri)
                {
                    due.push(uri);
                }
            }
            Message::Response(_) => {}
        }
    }
    Ending::Disconnected
}

/// Waits for `initialize`, answering other requests with "not initialized"; `None` when
/// the client leaves first.
fn await_initialize(
    incoming: &Receiver<Message>,
    outbox: &state::Outbox,
) -> Option<(RequestId, serde_json::Value)> {
    for msg in incoming {
        match msg {
            Message::Request(r) if r.method == req::Initialize::METHOD => {
                return Some((r.id, r.params));
            }
            Message::Request(r) => outbox(
                Response::new_err(
                    r.id,
                    ErrorCode::ServerNotInitialized as i32,
                    format!("{} before initialize", r.method),
                )
                .into(),
            ),
            Message::Notification(n) if n.method == note::Exit::METHOD => return None,
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    None
}

/// The workspace folder `initialize` names: the first workspace folder, else `rootUri`,
/// else `rootPath`.
fn root_of(params: &serde_json::Value) -> Option<PathBuf> {
    let folder = params
        .get("workspaceFolders")
        .and_then(|f| f.get(0))
        .and_then(|f| f.get("uri"))
        .and_then(|u| u.as_str())
        .and_then(uri::path_of);
    let root_uri = || {
        params
            .get("rootUri")
            .and_then(|u| u.as_str())
            .and_then(uri::path_of)
    };
    let root_path = || {
        params
            .get("rootPath")
            .and_then(|p| p.as_str())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    folder.or_else(root_uri).or_else(root_path)
}

/// What the server can do.
fn initialize_result() -> InitializeResult {
    let sync = TextDocumentSyncOptions {
        open_close: Some(true),
        change: Some(TextDocumentSyncKind::FULL),
        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
            include_text: Some(true),
        })),
        ..TextDocumentSyncOptions::default()
    };
    InitializeResult {
        capabilities: ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Options(sync)),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            document_link_provider: Some(DocumentLinkOptions {
                resolve_provider: Some(false),
                work_done_progress_options: Default::default(),
            }),
            code_lens_provider: Some(CodeLensOptions {
                resolve_provider: Some(false),
            }),
            code_action_provider: Some(CodeActionProviderCapability::Options(
                lsp_types::CodeActionOptions {
                    code_action_kinds: Some(vec![commands::RUN_KIND.into()]),
                    ..lsp_types::CodeActionOptions::default()
                },
            )),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: vec![RUN_CRITERION.into()],
                work_done_progress_options: Default::default(),
            }),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "vermas".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    }
}

/// Answers one request (a run of a criterion answers later, from its own thread).
fn request(server: &Arc<Server>, r: Request) {
    let response = match r.method.as_str() {
        req::DocumentLinkRequest::METHOD => answer(r, |p: lsp_types::DocumentLinkParams| {
            with_spec(server, &p.text_document.uri, links::links)
        }),
        req::HoverRequest::METHOD => answer(r, |p: lsp_types::HoverParams| {
            let at = p.text_document_position_params;
            server
                .spec(&at.text_document.uri)
                .ok()
                .flatten()
                .and_then(|doc| hover::hover(server, &doc, at.position.line))
        }),
        req::CodeLensRequest::METHOD => answer(r, |p: lsp_types::CodeLensParams| {
            with_spec(server, &p.text_document.uri, commands::lenses)
        }),
        req::CodeActionRequest::METHOD => answer(r, |p: lsp_types::CodeActionParams| {
            with_spec(server, &p.text_document.uri, |doc| {
                commands::actions(doc, p.range, &p.context)
            })
        }),
        req::ExecuteCommand::METHOD => match execute(server, r) {
            Some(response) => response,
            None => return,
        },
        req::Initialize::METHOD => Response::new_err(
            r.id,
            ErrorCode::InvalidRequest as i32,
            "initialize was already received".into(),
        ),
        _ => Response::new_err(
            r.id,
            ErrorCode::MethodNotFound as i32,
            format!("vermas lsp does not handle {}", r.method),
        ),
    };
    server.send(response);
}

/// The answer to `r` from its parameters; unreadable parameters are "invalid params".
fn answer<P: DeserializeOwned, R: Serialize>(r: Request, f: impl FnOnce(P) -> R) -> Response {
    match serde_json::from_value::<P>(r.params) {
        Ok(params) => Response::new_ok(r.id, f(params)),
        Err(e) => invalid_params(r.id, format!("{}: {e}", r.method)),
    }
}

/// `f` of the spec `uri` names; the empty list for anything that is not a spec.
fn with_spec<T>(
    server: &Server,
    uri: &lsp_types::Uri,
    f: impl FnOnce(&state::SpecDoc) -> Vec<T>,
) -> Vec<T> {
    match server.spec(uri) {
        Ok(Some(doc)) => f(&doc),
        _ => Vec::new(),
    }
}

/// `workspace/executeCommand`: checks the command and its arguments, then runs the
/// criterion on a thread of its own, which answers and republishes the diagnostics.
fn execute(server: &Arc<Server>, r: Request) -> Option<Response> {
    let id = r.id.clone();
    let params = match serde_json::from_value::<lsp_types::ExecuteCommandParams>(r.params) {
        Ok(p) => p,
        Err(e) => return Some(invalid_params(id, format!("{}: {e}", r.method))),
    };
    if params.command != RUN_CRITERION {
        let message = format!(
            "unknown command '{}' (vermas runs {RUN_CRITERION})",
            params.command
        );
        return Some(invalid_params(id, message));
    }
    let (uri, line) = match commands::arguments(&params.arguments) {
        Ok(args) => args,
        Err(message) => return Some(invalid_params(id, message)),
    };
    let worker = Arc::clone(server);
    let reply_id = id.clone();
    let spawned = std::thread::Builder::new()
        .name("vermas-run-criterion".into())
        .spawn(move || {
            let ran = catch_unwind(AssertUnwindSafe(|| {
                commands::run_criterion(&worker, &uri, line)
            }));
            diagnostics::publish(&worker, &uri);
            let response = match ran {
                Ok(Ok(report)) => {
                    show_outcome(&worker, &report);
                    Response::new_ok(reply_id, report)
                }
                Ok(Err(message)) => {
                    Response::new_err(reply_id, ErrorCode::RequestFailed as i32, message)
                }
                Err(panic) => internal_error(reply_id, &panic),
            };
            worker.send(response);
        });
    match spawned {
        Ok(_) => None,
        Err(e) => Some(Response::new_err(
            id,
            ErrorCode::InternalError as i32,
            format!("cannot start a thread to run the criterion: {e}"),
        )),
    }
}

/// Tells the user how a criterion run ended (clients show `window/showMessage`).
fn show_outcome(server: &Server, report: &commands::RunReport) {
    use vermas_core::check::Outcome;
    let typ = match report.outcome {
        Outcome::Pass => MessageType::INFO,
        Outcome::Skip | Outcome::Unstable => MessageType::WARNING,
        Outcome::Fail | Outcome::Error => MessageType::ERROR,
    };
    let mut message = format!(
        "{} {}:{} {}",
        report.outcome,
        report.spec,
        report.line + 1,
        report.criterion
    );
    if let Some(reason) = &report.reason {
        message.push_str(&format!(" ({reason})"));
    }
    let params = ShowMessageParams { typ, message };
    server.send(Notification::new(note::ShowMessage::METHOD.into(), params));
}

/// Handles one notification; unknown ones are ignored, as the protocol asks. An edit
/// returns the document whose diagnostics it made due (published once the edits stop).
fn notification(server: &Server, n: Notification) -> Option<lsp_types::Uri> {
    match n.method.as_str() {
        note::DidOpenTextDocument::METHOD => {
            if let Ok(p) =
                n.extract::<lsp_types::DidOpenTextDocumentParams>(note::DidOpenTextDocument::METHOD)
            {
                let doc = p.text_document;
                server.open(doc.uri.clone(), doc.text, doc.version);
                diagnostics::publish(server, &doc.uri);
            }
        }
        note::DidChangeTextDocument::METHOD => {
            if let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(
                note::DidChangeTextDocument::METHOD,
            ) {
                let doc = p.text_document;
                server.change(&doc.uri, doc.version, p.content_changes);
                return Some(doc.uri);
            }
        }
        note::DidSaveTextDocument::METHOD => {
            if let Ok(p) =
                n.extract::<lsp_types::DidSaveTextDocumentParams>(note::DidSaveTextDocument::METHOD)
            {
                server.saved(&p.text_document.uri, p.text);
                // A saved check file may define or drop functions the open specs link to.
                for uri in server.open_uris() {
                    diagnostics::publish(server, &uri);
                }
            }
        }
        note::DidCloseTextDocument::METHOD => {
            if let Ok(p) = n.extract::<lsp_types::DidCloseTextDocumentParams>(
                note::DidCloseTextDocument::METHOD,
            ) {
                server.close(&p.text_document.uri);
                diagnostics::clear_or_send(server, &p.text_document.uri, Vec::new(), None);
            }
        }
        _ => {}
    }
    None
}

/// "Invalid params" with `message`.
fn invalid_params(id: RequestId, message: String) -> Response {
    Response::new_err(id, ErrorCode::InvalidParams as i32, message)
}

/// The answer to a request whose handler panicked: the server goes on.
fn internal_error(id: RequestId, panic: &Box<dyn std::any::Any + Send>) -> Response {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Response::new_err(
        id,
        ErrorCode::InternalError as i32,
        format!("vermas lsp failed on this request: {what}"),
    )
}
