//! The language server: protocol, a client's view, bad frames.

pub mod client;
mod client_view;
mod server;
