//! What runs a check file that is executable: read from its first line as the kernel reads
//! it (`#!`, spaces or tabs, the interpreter, the rest of the line as its one argument;
//! `env` and its `-S` looked through), or, with no `#!` line, `/bin/sh` as `execvp` falls
//! back to it, unless the file is a compiled program.

use std::path::Path;

/// How an executable check file is interpreted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Interpreter {
    /// A POSIX shell or bash (`sh`, `bash`, `dash`, `ash`, `ksh`, `mksh`, `posh`, or no
    /// `#!` line): vermas runs it with bash and its probe, with these options.
    Shell(Vec<String>),
    /// Anything else (python, node, a compiled program), named.
    Other(String),
}

/// The shells whose scripts bash runs as they are meant.
const SHELLS: &[&str] = &["sh", "bash", "dash", "ash", "ksh", "mksh", "posh"];

/// What runs the executable file `path`.
pub(crate) fn of_file(path: &Path) -> Interpreter {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    if read.is_err() {
        return Interpreter::Other("an unreadable file".into());
    }
    of_head(&head)
}

/// What runs a file that starts with `head`.
pub(super) fn of_head(head: &[u8]) -> Interpreter {
    if head.starts_with(b"\x7fELF") {
        return Interpreter::Other("a compiled program".into());
    }
    let Some(rest) = head.strip_prefix(b"#!") else {
        // `execvp` runs a file the kernel cannot with /bin/sh.
        return Interpreter::Shell(Vec::new());
    };
    let line = String::from_utf8_lossy(rest);
    let line = line.lines().next().unwrap_or("");
    let line = line.trim_matches([' ', '\t', '\r']);
    let (program, argument) = match line.split_once([' ', '\t']) {
        Some((p, a)) => (p, a.trim_matches([' ', '\t'])),
        None => (line, ""),
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if name == "env" {
        return through_env(argument);
    }
    let options = if argument.is_empty() {
        Vec::new()
    } else {
        vec![argument.to_string()]
    };
    classify(name, options)
}

/// The interpreter `env` is asked to find on `argument` (its own options and variable
/// settings passed over; with `-S`, the rest split into words).
fn through_env(argument: &str) -> Interpreter {
    let mut words = argument.split([' ', '\t']).filter(|w| !w.is_empty());
    while let Some(word) = words.next() {
        if word == "-S" || word.starts_with("-S") {
            let rest: Vec<&str> = word
                .strip_prefix("-S")
                .filter(|w| !w.is_empty())
                .into_iter()
                .chain(words.by_ref())
                .collect();
            return through_env_words(&rest);
        }
        if word.starts_with('-') || word.contains('=') {
            continue;
        }
        let options: Vec<String> = words.map(str::to_string).collect();
        let name = word.rsplit('/').next().unwrap_or(word);
        return classify(name, options);
    }
    Interpreter::Other("env with no program".into())
}

/// The interpreter of `env -S`'s words.
fn through_env_words(words: &[&str]) -> Interpreter {
    let mut it = words
        .iter()
        .copied()
        .skip_while(|w| w.starts_with('-') || w.contains('='));
    match it.next() {
        Some(program) => {
            let name = program.rsplit('/').next().unwrap_or(program);
            classify(name, it.map(str::to_string).collect())
        }
        None => Interpreter::Other("env -S with no program".into()),
    }
}

/// A shell, or another interpreter, by its file name.
fn classify(name: &str, options: Vec<String>) -> Interpreter {
    if SHELLS.contains(&name) {
        Interpreter::Shell(options)
    } else {
        Interpreter::Other(name.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_first_line_as_the_kernel_does() {
        let shell = |o: &[&str]| Interpreter::Shell(o.iter().map(|s| s.to_string()).collect());
        assert_eq!(of_head(b"#!/bin/bash\nx"), shell(&[]));
        assert_eq!(of_head(b"#!/bin/bash\t\nx"), shell(&[]));
        assert_eq!(of_head(b"#! /bin/sh -e\nx"), shell(&["-e"]));
        assert_eq!(of_head(b"#!/bin/dash\n"), shell(&[]));
        assert_eq!(of_head(b"#!/usr/bin/env sh\n"), shell(&[]));
        assert_eq!(of_head(b"#!/usr/bin/env -S bash -eu\n"), shell(&["-eu"]));
        assert_eq!(of_head(b"echo hi\n"), shell(&[]));
        assert_eq!(
            of_head(b"#!/usr/bin/env python3\n"),
            Interpreter::Other("python3".into())
        );
        assert_eq!(
            of_head(b"\x7fELF\x02"),
            Interpreter::Other("a compiled program".into())
        );
    }
}
