//! The command line as a whole: names, help, errors, messages, set-up, doctor, a newcomer's path, robustness.

mod command_names;
mod completions;
mod design;
mod doctor;
mod error_codes;
mod messages;
mod next_steps;
mod robust_edges;
mod robustness;
mod setup;
mod stranger_path;
