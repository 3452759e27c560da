//! Terminal styles, with anstyle (as clap writes its own): an outcome's tag coloured by
//! what it says when colour is on. The domain writes plain text; only this crate colours.

use anstyle::{AnsiColor, Style};
use vermas_core::check::Outcome;

/// `[PASS]` and friends: coloured (green, red, yellow, magenta) when `colour`, else plain.
pub fn outcome_tag(o: Outcome, colour: bool) -> String {
    let text = vermas_core::verify::report::plain_tag(o);
    if !colour {
        return text;
    }
    let colour = match o {
        Outcome::Pass => AnsiColor::Green,
        Outcome::Fail => AnsiColor::Red,
        Outcome::Skip => AnsiColor::Yellow,
        Outcome::Error | Outcome::Unstable => AnsiColor::Magenta,
    };
    let style = Style::new().fg_color(Some(colour.into()));
    format!("{}{text}{}", style.render(), style.render_reset())
}

/// The tag writer for `verify::report::human`, coloured when `colour`.
pub fn tagger(colour: bool) -> impl Fn(Outcome) -> String {
    move |o| outcome_tag(o, colour)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_when_asked() {
        assert_eq!(outcome_tag(Outcome::Pass, false), "[PASS]");
        assert_eq!(
            outcome_tag(Outcome::Fail, true),
            "\u{1b}[31m[FAIL]\u{1b}[0m"
        );
    }
}
