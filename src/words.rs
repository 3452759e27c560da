//! Counts in words: `1 spec`, `2 specs`, `3 criteria`.

/// `1 spec`, `2 specs`: a count with its noun in the right number (`-s` added).
pub fn plural(n: usize, noun: &str) -> String {
    counted(n, noun, &format!("{noun}s"))
}

/// `1 criterion`, `2 criteria`: a count with the noun's own singular or plural.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(plural(1, "spec"), "1 spec");
        assert_eq!(plural(0, "spec"), "0 specs");
        assert_eq!(plural(2, "error"), "2 errors");
        assert_eq!(counted(1, "criterion", "criteria"), "1 criterion");
        assert_eq!(counted(3, "criterion", "criteria"), "3 criteria");
    }
}
