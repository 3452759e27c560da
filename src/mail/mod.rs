//! Agent mail: one message per file under `.beads/mail/<mailbox>/`, every change a commit.
