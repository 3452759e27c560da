//! Checks as processes: containment, process trees, hostile check scripts.

mod containment;
mod hostile;
mod processes;
