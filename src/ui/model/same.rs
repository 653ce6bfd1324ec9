//! Whether two runs agree on the part of a trace one component draws (`same_part`): the
//! comparison the lanes' and the inspectors' props use, kept in the model so that they reach
//! down for it and nothing under `ui/` reaches back up into `ui/mod.rs`.

/// Whether two runs agree on the part of a trace that one component draws: the same run, or
/// equal parts. Mid-drag every frame brings a new run; a component whose props compare with
/// this skips its render when its own part did not move.
pub fn same_part<'a, T: PartialEq>(
    a: &'a std::rc::Rc<crate::sim::Trace>,
    b: &'a std::rc::Rc<crate::sim::Trace>,
    part: impl Fn(&'a crate::sim::Trace) -> T,
) -> bool {
    std::rc::Rc::ptr_eq(a, b) || part(a) == part(b)
}
