//! The one table of a bead's fields. Every form of a bead is read and written from it: the
//! file vermas writes ([`Bead::render`]) and its fast reader ([`super::canonical`]), the
//! index line ([`super::cache`]), and the JSON a long `--json` listing shows
//! ([`super::json_cache`], serde's, of the bead the line or its file holds). Each form
//! has one rule per [`Kind`], so a field added here with a kind that exists is carried by
//! every form; a new kind is a compile error in each form until it has its rule.
//!
//! The table's order is the order of [`Bead`]'s members: the order the file and its JSON
//! list them. A field added to [`Bead`] and not here does not compile
//! (`every_bead_field_is_in_the_table` below names each field); the tests here hold every
//! form to every row.

use super::model::{AcceptanceCriterion, Approval, Bead, Dependency, IssueType, Note, Status};
use crate::time::Timestamp;
use serde::Serialize;

/// How a field's value is written and read: each form has one rule per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A string (`scalar` in the file).
    Text,
    /// A [`Status`].
    Status,
    /// A priority, one digit.
    Priority,
    /// An [`IssueType`].
    Type,
    /// Labels, a flow list of strings.
    Labels,
    /// An optional string (`null` when none).
    OptText,
    /// An optional time (`null` when none).
    Time,
    /// Dependencies, one flow mapping per line.
    Deps,
    /// Notes, one flow mapping per line.
    Notes,
    /// Acceptance criteria, one flow mapping per line.
    Criteria,
    /// What an approval froze, one flow mapping.
    Approval,
    /// The markdown body after the front matter.
    Body,
}

/// Where a field is kept in the index line (see [`super::cache`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Column {
    /// The line's key.
    Key,
    /// Field `n` of the line.
    At(usize),
    /// Left out: a bead that has it is marked partial, and read from its file when shown.
    Left,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    /// Its key in the file and the JSON.
    pub name: &'static str,
    /// How its value is written and read.
    pub kind: Kind,
    /// Where the index line keeps it.
    pub column: Column,
    /// True when the file and the JSON leave it out while it is empty.
    pub omit_empty: bool,
}

/// A field's value, borrowed from a bead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ref<'a> {
    /// [`Kind::Text`].
    Text(&'a String),
    /// [`Kind::Status`].
    Status(&'a Status),
    /// [`Kind::Priority`].
    Priority(&'a u8),
    /// [`Kind::Type`].
    Type(&'a IssueType),
    /// [`Kind::Labels`].
    Labels(&'a Vec<String>),
    /// [`Kind::OptText`].
    OptText(&'a Option<String>),
    /// [`Kind::Time`].
    Time(&'a Option<Timestamp>),
    /// [`Kind::Deps`].
    Deps(&'a Vec<Dependency>),
    /// [`Kind::Notes`].
    Notes(&'a Vec<Note>),
    /// [`Kind::Criteria`].
    Criteria(&'a Vec<AcceptanceCriterion>),
    /// [`Kind::Approval`].
    Approval(&'a Option<Approval>),
    /// [`Kind::Body`].
    Body(&'a String),
}

/// A field's value, borrowed mutably from a bead.
#[derive(Debug)]
pub enum Mut<'a> {
    /// [`Kind::Text`].
    Text(&'a mut String),
    /// [`Kind::Status`].
    Status(&'a mut Status),
    /// [`Kind::Priority`].
    Priority(&'a mut u8),
    /// [`Kind::Type`].
    Type(&'a mut IssueType),
    /// [`Kind::Labels`].
    Labels(&'a mut Vec<String>),
    /// [`Kind::OptText`].
    OptText(&'a mut Option<String>),
    /// [`Kind::Time`].
    Time(&'a mut Option<Timestamp>),
    /// [`Kind::Deps`].
    Deps(&'a mut Vec<Dependency>),
    /// [`Kind::Notes`].
    Notes(&'a mut Vec<Note>),
    /// [`Kind::Criteria`].
    Criteria(&'a mut Vec<AcceptanceCriterion>),
    /// [`Kind::Approval`].
    Approval(&'a mut Option<Approval>),
    /// [`Kind::Body`].
    Body(&'a mut String),
}

/// Defines [`FIELDS`], [`Bead::fields`], [`Bead::fields_mut`] and the compile-time check
/// that the table names every member of [`Bead`], from one list of rows:
/// `name: Kind, Column, omitted when empty;`.
macro_rules! bead_fields {
    ($($name:ident: $kind:ident, $column:expr, $omit:literal;)*) => {
        /// Every field of a bead, in the order the file and the JSON list them.
        pub(crate) const FIELDS: [Field; [$(stringify!($name)),*].len()] = [$(Field {
            name: stringify!($name),
            kind: Kind::$kind,
            column: $column,
            omit_empty: $omit,
        }),*];

        impl Bead {
            /// Its fields' values, in [`FIELDS`] order.
            pub fn fields(&self) -> [Ref<'_>; FIELDS.len()] {
                [$(Ref::$kind(&self.$name)),*]
            }

            /// Its fields' values to change, in [`FIELDS`] order.
            pub fn fields_mut(&mut self) -> [Mut<'_>; FIELDS.len()] {
                [$(Mut::$kind(&mut self.$name)),*]
            }
        }

        /// Does not compile when [`Bead`] has a member the table does not name (`partial`
        /// is no field: it says where the bead was read from). When it fails, add the new
        /// member as a row of the table below, in `Bead`'s order.
        #[allow(dead_code)]
        fn every_bead_field_is_in_the_table(bead: Bead) {
            let Bead { $($name: _,)* partial: _ } = bead;
        }
    };
}

bead_fields! {
    id: Text, Column::Key, false;
    title: Text, Column::At(8), false;
    status: Status, Column::At(0), false;
    priority: Priority, Column::At(2), false;
    issue_type: Type, Column::At(1), false;
    labels: Labels, Column::At(6), false;
    assignee: OptText, Column::At(7), false;
    created_at: Time, Column::At(3), false;
    created_by: OptText, Column::At(9), false;
    updated_at: Time, Column::At(10), false;
    closed_at: Time, Column::At(11), false;
    close_reason: OptText, Column::At(12), false;
    parent: OptText, Column::At(13), false;
    spec: OptText, Column::At(14), false;
    dependencies: Deps, Column::At(5), false;
    notes: Notes, Column::Left, false;
    acceptance_criteria: Criteria, Column::Left, true;
    approved: Approval, Column::Left, true;
    branch: OptText, Column::Left, true;
    worktree: OptText, Column::Left, true;
    description: Body, Column::Left, false;
}

/// The index line's field that says a bead has more than its line (not a bead field).
pub(crate) const PARTIAL_COLUMN: usize = 4;

/// How many fields an index line has: the kept ones and the partial flag.
pub(crate) const COLUMNS: usize = {
    let mut n = 1;
    let mut i = 0;
    while i < FIELDS.len() {
        if let Column::At(_) = FIELDS[i].column {
            n += 1;
        }
        i += 1;
    }
    n
};

/// For each index line field, the row of [`FIELDS`] it holds ([`PARTIAL_COLUMN`]: none,
/// `usize::MAX`).
pub(crate) const BY_COLUMN: [usize; COLUMNS] = {
    let mut out = [usize::MAX; COLUMNS];
    let mut i = 0;
    while i < FIELDS.len() {
        if let Column::At(c) = FIELDS[i].column {
            assert!(
                c < COLUMNS && c != PARTIAL_COLUMN,
                "a column out of the line"
            );
            assert!(out[c] == usize::MAX, "two fields in one column");
            out[c] = i;
        }
        i += 1;
    }
    out
};

/// The row of the field named `name` (a compile error in a constant when there is none).
pub(crate) const fn row(name: &str) -> usize {
    let mut i = 0;
    while i < FIELDS.len() {
        if str_eq(FIELDS[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("no such bead field")
}

/// The index line field that holds the field named `name`.
pub(crate) const fn column(name: &str) -> usize {
    match FIELDS[row(name)].column {
        Column::At(c) => c,
        _ => panic!("the index line does not hold that field"),
    }
}

/// `a == b`, usable in constants.
const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// What the forms rely on, checked as the crate compiles:
const _: () = {
    let mut i = 0;
    while i < FIELDS.len() {
        let f = FIELDS[i];
        // The index line has a rule for these kinds only.
        if !matches!(f.column, Column::Left) {
            assert!(
                !matches!(
                    f.kind,
                    Kind::Notes | Kind::Criteria | Kind::Approval | Kind::Body
                ),
                "the index line cannot hold this kind"
            );
        }
        i += 1;
    }
    // The fast reader marks the keys it saw in a `u32`.
    assert!(FIELDS.len() <= 32);
    // The fast reader makes the bead from these two.
    assert!(matches!(FIELDS[row("id")].kind, Kind::Text));
    assert!(matches!(FIELDS[row("title")].kind, Kind::Text));
};

impl Ref<'_> {
    /// True when the value is empty: none, no items, no text.
    pub fn is_empty(&self) -> bool {
        match self {
            Ref::Text(s) | Ref::Body(s) => s.is_empty(),
            Ref::Labels(v) => v.is_empty(),
            Ref::OptText(v) => v.is_none(),
            Ref::Time(v) => v.is_none(),
            Ref::Deps(v) => v.is_empty(),
            Ref::Notes(v) => v.is_empty(),
            Ref::Criteria(v) => v.is_empty(),
            Ref::Approval(v) => v.is_none(),
            Ref::Status(_) | Ref::Priority(_) | Ref::Type(_) => false,
        }
    }
}

impl Serialize for Ref<'_> {
    /// As the field serialises inside [`Bead`].
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Ref::Text(v) | Ref::Body(v) => v.serialize(s),
            Ref::Status(v) => v.serialize(s),
            Ref::Priority(v) => v.serialize(s),
            Ref::Type(v) => v.serialize(s),
            Ref::Labels(v) => v.serialize(s),
            Ref::OptText(v) => v.serialize(s),
            Ref::Time(v) => v.serialize(s),
            Ref::Deps(v) => v.serialize(s),
            Ref::Notes(v) => v.serialize(s),
            Ref::Criteria(v) => v.serialize(s),
            Ref::Approval(v) => v.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests;
