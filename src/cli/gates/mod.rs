//! Handler of `gate`: run one deterministic gate phase and render its evidence.

pub(super) mod args;

use super::gates::args::GateArgs;
use super::output::{recorded_note, versioned};
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use vermas_core::gate::{self, GateRequest};

/// `gate PHASE ID [--ac N] [--cmd CMD]`: exit 0 only when the gate accepts.
pub fn gate(ctx: &Ctx, ui: &mut Ui, a: GateArgs) -> CmdResult {
    let phase = a.phase;
    let ws = ctx.workspace()?;
    let req = GateRequest {
        phase,
        id: a.id,
        ac: a.ac,
        cmd: a.cmd,
    };
    let (run, recorded) = gate::run_gate(&ws, &ctx.actor(&ws)?, &req)?;
    recorded_note(&recorded);
    if ui.json {
        ui.json(&versioned(&run));
    } else {
        let what = run
            .criterion
            .as_deref()
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        outln!(
            ui,
            "Gate {}: {}{what} (attempt {})",
            phase.name().to_uppercase(),
            run.bead,
            run.attempt
        );
        outln!(ui, "  command: {}", run.command);
        let exit = run
            .exit_code
            .map_or("no exit code".to_string(), |c| format!("exit {c}"));
        let runs = if run.runs > 1 {
            format!(", {} runs", run.runs)
        } else {
            String::new()
        };
        outln!(
            ui,
            "  {exit} in {:.1}s{runs}",
            run.duration_ms as f64 / 1000.0
        );
        if let Some(reason) = &run.reason {
            outln!(ui, "  {reason}");
        }
        if !run.accepted() && !run.snippet.trim().is_empty() {
            for line in run.snippet.lines() {
                outln!(ui, "  | {line}");
            }
        }
        outln!(ui, "  classification: {}", run.classification);
    }
    Ok(if run.accepted() { 0 } else { 1 })
}
