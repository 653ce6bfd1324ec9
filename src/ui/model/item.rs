//! One trait for anything on a lane with a time and parts: a client's event and a Redlock
//! instance's event. Dragging, nudging, the key map and the inspector go through it, so both
//! kinds of event are edited by one model; each kind says which parts it has, how an edge
//! moves, and how a typed field is read (or refused, naming the field).

use super::fields::Field;

/// Which part of an event a drag or a key press moves. `Start` and `End` exist only for events
/// with a length (a pause, a crash, a partition; a debit's `End` is its network delay).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Body,
    Start,
    End,
}

impl Part {
    /// The `data-part` attribute value of the element that stands for this part.
    pub fn attr(self) -> &'static str {
        match self {
            Part::Body => "body",
            Part::Start => "start",
            Part::End => "end",
        }
    }

    pub fn from_attr(attr: &str) -> Option<Part> {
        match attr {
            "body" => Some(Part::Body),
            "start" => Some(Part::Start),
            "end" => Some(Part::End),
            _ => None,
        }
    }
}

/// An event on a lane: it happens at a time, has parts a person can move, and fields a
/// person can type.
pub trait LaneItem: Clone + PartialEq {
    /// When it happens.
    fn at_ms(&self) -> u64;
    /// When it ends (its start, for an instant).
    fn end_ms(&self) -> u64;
    /// Whether `part` can be dragged or nudged.
    fn has_part(&self, part: Part) -> bool;
    /// The time of the edge a part moves.
    fn edge_ms(&self, part: Part) -> u64 {
        match part {
            Part::Body | Part::Start => self.at_ms(),
            Part::End => self.end_ms(),
        }
    }
    /// Moves one edge to `to_ms` (already within the scenario's time range). A length keeps at
    /// least 1 ms, and moving a start keeps the end where it was. False if nothing applies.
    fn set_edge(&mut self, part: Part, to_ms: u64) -> bool;
    /// What the inspector calls it.
    fn kind_label(&self) -> &'static str;
    /// The fields it has, in the order the inspector shows them.
    fn fields(&self) -> &'static [Field];
    /// A field's current value as its input shows it (the option value for a select), or
    /// `None` if it has no such field.
    fn value(&self, f: Field) -> Option<String>;
    /// A copy with `f` set from the text `v`, or why the text was refused, naming the field.
    fn with_field(&self, f: Field, v: &str) -> Result<Self, String>;
}

/// The refusal for a field an event does not have.
pub fn no_such_field(kind: &str, f: Field) -> String {
    format!("a {kind} has no {}", f.label())
}
