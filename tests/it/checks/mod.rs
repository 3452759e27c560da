//! Checks as processes: containment, process trees, hostile check scripts and the ways
//! out of the shell they may try.

mod containment;
mod hostile;
mod hostile_exits;
mod processes;
