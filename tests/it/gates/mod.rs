//! Gates and tasks: deterministic gates, discovered quality commands, smart-ralph's tasks files.

mod commands;
mod discover;
mod smart_ralph_habits;
mod tasks;
mod tasks_protocol;
