//! Text as one word for `sh`: the single home of shell quoting.

/// `text` in single quotes, each `'` written as `'\''`: one literal word for `sh`.
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as one word for `sh`: as it is when it holds only safe characters, else
/// [`quote`]d.
pub fn word(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if safe { text.to_string() } else { quote(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_every_character_literal() {
        assert_eq!(quote("plain"), "'plain'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("$HOME `x` \"y\""), "'$HOME `x` \"y\"'");
    }

    #[test]
    fn quoted_words_survive_the_shell() {
        for text in ["it's", "a b", "$(echo no)", "''", "\\'\n"] {
            let out = std::process::Command::new("sh")
                .args(["-c", &format!("printf %s {}", quote(text))])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
        }
    }

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(word("/usr/bin/vermas"), "/usr/bin/vermas");
        assert_eq!(word("/tmp/my repo"), "'/tmp/my repo'");
        assert_eq!(word("it's"), r"'it'\''s'");
        assert_eq!(word(""), "''");
        assert_eq!(word("$HOME"), "'$HOME'");
    }
}
