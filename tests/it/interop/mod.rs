//! Users of other tools: bd's files and commands beside vermas's.

mod bd_coexist;
mod bd_commands;
mod bd_export;
mod bd_gates;
mod bd_interop;
mod bd_ready_rules;
