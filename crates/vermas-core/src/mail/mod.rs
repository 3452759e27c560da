//! Agent mail: one message per file under `.beads/mail/<mailbox>/`, every change a commit.
//!
//! Addresses and groups are in [`address`], the record in [`message`], folders, the index
//! cache and id lookup in [`store`], the index format and
//! borrowed inbox entries in [`index`], changes in [`ops`] and read-only queries in [`query`].
//! Ephemeral mail lives under `.beads/wisps/mail/` and is never committed.

pub mod address;
pub(crate) mod fresh;
pub mod index;
pub mod message;
pub mod ops;
pub mod query;
pub mod store;

pub use address::Address;
pub use message::{Message, MsgType, Priority};
