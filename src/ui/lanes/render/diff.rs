//! What changed between two drawings, as the few writes that turn the DOM of the old one into
//! the new one: an attribute set or removed, a leaf's text, a keyed list put in a new order, and
//! only where the shape of a part changed, that part's markup written again. The patcher
//! (`patch`, wasm32) applies them in order; this module is pure and tested natively. Unchanged
//! elements keep their DOM node, so focus, pointer capture and a test's handle on an element
//! survive a frame, as they did under Yew's diff.

use super::node::{El, Kids, Val};

/// The place of an element: its index among its parent's element children, from the root.
pub type Path = Vec<u16>;

/// One write to the DOM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Set (or with `None` remove) an attribute.
    Attr {
        path: Path,
        name: &'static str,
        value: Option<Val>,
    },
    /// A leaf's text.
    Text { path: Path, text: String },
    /// The element's children, in a new order: the child now at `k` is the one that was at
    /// `from[k]` (a permutation; applied before any write inside them).
    Order { path: Path, from: Vec<u16> },
    /// The element's children written again, as this markup.
    Children { path: Path, markup: String },
    /// `remove` of the element's children from index `at` taken out, and this markup put in
    /// their place (a list that grew or shrank: the children before and after stay, and are
    /// diffed at their new places by the writes after this one).
    Splice {
        path: Path,
        at: u16,
        remove: u16,
        markup: String,
    },
    /// The element written again, as this markup.
    Replace { path: Path, markup: String },
}

/// The writes that turn `old` into `new`, both drawn at the same root.
pub fn diff(old: &El, new: &El) -> Vec<Op> {
    let mut ops = Vec::new();
    let mut path = Vec::new();
    el(&mut ops, &mut path, old, new);
    ops
}

/// One pass over both trees: each attribute and text is compared once, not once per level.
fn el(ops: &mut Vec<Op>, path: &mut Path, old: &El, new: &El) {
    if old.tag != new.tag {
        ops.push(Op::Replace {
            path: path.clone(),
            markup: new.markup(),
        });
        return;
    }
    attrs(ops, path, old, new);
    match (&old.kids, &new.kids) {
        // Compared by walking them once, not compared whole first at every level.
        (Kids::Els(a), Kids::Els(b)) => kids(ops, path, a, b),
        (a, b) if a == b => {}
        (_, Kids::Text(t)) => ops.push(Op::Text {
            path: path.clone(),
            text: t.clone(),
        }),
        (_, b) => ops.push(Op::Children {
            path: path.clone(),
            markup: match b {
                Kids::Els(v) => super::node::markup_of(v),
                _ => String::new(),
            },
        }),
    }
}

fn attrs(ops: &mut Vec<Op>, path: &Path, old: &El, new: &El) {
    if old.attrs == new.attrs {
        return;
    }
    for (name, value) in &new.attrs {
        if old.get(name) != Some(value) {
            ops.push(Op::Attr {
                path: path.clone(),
                name,
                value: Some(value.clone()),
            });
        }
    }
    for (name, _) in &old.attrs {
        if new.get(name).is_none() {
            ops.push(Op::Attr {
                path: path.clone(),
                name,
                value: None,
            });
        }
    }
}

fn kids(ops: &mut Vec<Op>, path: &mut Path, a: &[El], b: &[El]) {
    let same_keys = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.key == y.key);
    if same_keys {
        pairs(ops, path, a.iter().zip(b).enumerate());
        return;
    }
    let keys = |v: &[El]| v.iter().map(|e| e.key).collect::<Vec<_>>();
    if let Some(from) = permutation(&keys(a), &keys(b)) {
        ops.push(Op::Order {
            path: path.clone(),
            from: from.iter().map(|&i| i as u16).collect(),
        });
        let old = from.iter().map(|&i| &a[i]);
        pairs(ops, path, old.zip(b).enumerate());
        return;
    }
    if keyed(ops, path, a, b) {
        return;
    }
    // The children that stand for the same thing before and after (by tag, key, test id and
    // class) at the start and at the end stay; the ones between are taken out and the new ones
    // written in their place. The class is part of it because siblings of one tag often differ
    // by it alone (a pause's hit area, focus ring and bar are three rects): a hit area that
    // appears in front of them is one element put in, not every rect after it rewritten.
    let pre = a
        .iter()
        .zip(b)
        .take_while(|(x, y)| same_thing(x, y))
        .count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| same_thing(x, y))
        .count();
    let (gone, new) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    ops.push(Op::Splice {
        path: path.clone(),
        at: pre as u16,
        remove: gone.len() as u16,
        markup: super::node::markup_of(new),
    });
    pairs(ops, path, a[..pre].iter().zip(&b[..pre]).enumerate());
    let kept = a[a.len() - suf..].iter().zip(&b[b.len() - suf..]);
    pairs(
        ops,
        path,
        kept.enumerate().map(|(j, p)| (pre + new.len() + j, p)),
    );
}

/// What names a child among its siblings: its key, or else its test id.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ident<'a> {
    Key(u32),
    Test(&'a str),
}

fn ident(e: &El) -> Option<Ident<'_>> {
    match e.key {
        Some(k) => Some(Ident::Key(k)),
        None => e.get("data-testid")?.as_str().map(Ident::Test),
    }
}

/// A list whose children are each named (by key or test id, none twice on either side) that
/// changed in length or order: the children gone are taken out, those that stay are put in
/// their new order, the new ones are written in at their places, and the ones that stayed are
/// diffed where they now are. So an arrow that appears, or a write that moves past another,
/// costs its own element and not every sibling after it. False (nothing written) if a child
/// has no name or a name is given twice.
fn keyed(ops: &mut Vec<Op>, path: &mut Path, a: &[El], b: &[El]) -> bool {
    let (Some(old), Some(_)) = (named(a), named(b)) else {
        return false;
    };
    // For each new child, the old child it is (the same name and tag), if any.
    let from: Vec<Option<usize>> = b
        .iter()
        .map(|e| {
            let id = ident(e)?;
            let k = old.binary_search_by(|(x, _)| x.cmp(&id)).ok()?;
            let i = old[k].1;
            (a[i].tag == e.tag).then_some(i)
        })
        .collect();
    let mut kept = vec![false; a.len()];
    for &i in from.iter().flatten() {
        kept[i] = true;
    }
    // Out go the ones not kept, each run in one write, from the end so the indices before hold.
    let mut i = a.len();
    while i > 0 {
        if kept[i - 1] {
            i -= 1;
            continue;
        }
        let end = i;
        while i > 0 && !kept[i - 1] {
            i -= 1;
        }
        ops.push(Op::Splice {
            path: path.clone(),
            at: i as u16,
            remove: (end - i) as u16,
            markup: String::new(),
        });
    }
    // The ones kept, in their new order: each one's place among the kept as they stand.
    let mut rank = vec![0u16; a.len()];
    let mut n = 0u16;
    for (i, &k) in kept.iter().enumerate() {
        if k {
            rank[i] = n;
            n += 1;
        }
    }
    let order: Vec<u16> = from.iter().flatten().map(|&i| rank[i]).collect();
    if order.iter().enumerate().any(|(k, &r)| usize::from(r) != k) {
        ops.push(Op::Order {
            path: path.clone(),
            from: order,
        });
    }
    // In go the new ones, in order: every place before a run is already what it will be.
    let mut j = 0;
    while j < b.len() {
        if from[j].is_some() {
            j += 1;
            continue;
        }
        let start = j;
        while j < b.len() && from[j].is_none() {
            j += 1;
        }
        ops.push(Op::Splice {
            path: path.clone(),
            at: start as u16,
            remove: 0,
            markup: super::node::markup_of(&b[start..j]),
        });
    }
    let stayed = from
        .iter()
        .enumerate()
        .filter_map(|(j, i)| i.map(|i| (j, (&a[i], &b[j]))));
    pairs(ops, path, stayed);
    true
}

/// Each child's name and index, in name order; `None` if one has no name or a name is given
/// twice.
fn named(v: &[El]) -> Option<Vec<(Ident<'_>, usize)>> {
    let mut ids = v
        .iter()
        .enumerate()
        .map(|(i, e)| Some((ident(e)?, i)))
        .collect::<Option<Vec<_>>>()?;
    // The crate's own sort: the standard library's would add its own code for this type.
    crate::sim::sort::sort(&mut ids);
    let twice = ids.windows(2).any(|w| w[0].0 == w[1].0);
    (!twice).then_some(ids)
}

/// Whether two children stand for the same thing: the same tag, key, test id and class.
fn same_thing(x: &El, y: &El) -> bool {
    x.tag == y.tag
        && x.key == y.key
        && x.get("data-testid") == y.get("data-testid")
        && x.get("class") == y.get("class")
}

/// Diffs each old child with the new one at index `i`.
fn pairs<'a>(
    ops: &mut Vec<Op>,
    path: &mut Path,
    each: impl Iterator<Item = (usize, (&'a El, &'a El))>,
) {
    for (i, (o, n)) in each {
        path.push(i as u16);
        el(ops, path, o, n);
        path.pop();
    }
}

/// Where each of `b`'s keys was in `a`, if `b` is `a` in another order with every key given
/// and none twice.
fn permutation(a: &[Option<u32>], b: &[Option<u32>]) -> Option<Vec<usize>> {
    if a.len() != b.len() {
        return None;
    }
    let mut used = vec![false; a.len()];
    b.iter()
        .map(|k| {
            let k = (*k)?;
            let i = a.iter().position(|x| *x == Some(k))?;
            (!std::mem::replace(&mut used[i], true)).then_some(i)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(xs: &[(usize, i32)]) -> El {
        El::g()
            .a("class", "lane")
            .child(El::new("text").text("A"))
            .child(
                El::g().children(
                    xs.iter()
                        .map(|&(k, x)| El::new("rect").a("x", x).a("width", 4).key(k)),
                ),
            )
    }

    #[test]
    fn an_unchanged_drawing_writes_nothing() {
        let a = lane(&[(0, 1), (1, 5)]);
        assert_eq!(diff(&a, &a.clone()), vec![]);
    }

    #[test]
    fn a_moved_element_writes_only_its_attribute() {
        let ops = diff(&lane(&[(0, 1), (1, 5)]), &lane(&[(0, 1), (1, 7)]));
        assert_eq!(
            ops,
            vec![Op::Attr {
                path: vec![1, 1],
                name: "x",
                value: Some(Val::Int(7))
            }]
        );
    }

    #[test]
    fn keyed_elements_that_swap_places_are_moved_not_redrawn() {
        let ops = diff(&lane(&[(0, 1), (1, 5)]), &lane(&[(1, 5), (0, 6)]));
        assert_eq!(
            ops,
            vec![
                Op::Order {
                    path: vec![1],
                    from: vec![1, 0]
                },
                Op::Attr {
                    path: vec![1, 1],
                    name: "x",
                    value: Some(Val::Int(6))
                }
            ]
        );
    }

    #[test]
    fn a_list_that_grows_gets_only_its_new_child_and_text_and_attributes_follow() {
        let ops = diff(&lane(&[(0, 1)]), &lane(&[(0, 1), (1, 5)]));
        assert!(
            matches!(&ops[..], [Op::Splice { path, at: 1, remove: 0, markup }] if path == &vec![1] && markup.contains("x=\"5\""))
        );
        // One taken out of the middle: the ones after it are diffed at their new places.
        let ops = diff(&lane(&[(0, 1), (1, 5), (2, 9)]), &lane(&[(0, 1), (2, 8)]));
        assert_eq!(
            ops,
            vec![
                Op::Splice {
                    path: vec![1],
                    at: 1,
                    remove: 1,
                    markup: String::new()
                },
                Op::Attr {
                    path: vec![1, 1],
                    name: "x",
                    value: Some(Val::Int(8))
                }
            ]
        );
        // A rect of another class put in front of rects of one tag: only it is written.
        let rects = |classes: &[&'static str]| {
            El::g().children(
                classes
                    .iter()
                    .map(|&c| El::new("rect").a("class", c).a("x", 1)),
            )
        };
        assert_eq!(
            diff(&rects(&["ring", "bar"]), &rects(&["hit", "ring", "bar"])),
            vec![Op::Splice {
                path: vec![],
                at: 0,
                remove: 0,
                markup: "<rect class=\"hit\" x=\"1\"></rect>".into()
            }]
        );
        // Named children that come and go and change places: each kept one keeps its node.
        let named = |xs: &[(usize, i32)]| {
            El::g().children(xs.iter().map(|&(k, x)| {
                El::new("line")
                    .a("x1", x)
                    .key(k)
                    .child(El::new("title").text(format!("arrow {k}")))
            }))
        };
        let (a, b) = (
            named(&[(1, 10), (2, 20), (3, 30), (5, 50)]),
            named(&[(3, 31), (4, 40), (1, 10), (6, 60), (7, 70)]),
        );
        let ops = diff(&a, &b);
        assert_eq!(
            ops.iter()
                .filter(|o| matches!(o, Op::Splice { remove, .. } if *remove > 0))
                .count(),
            2,
            "{ops:?}"
        );
        assert!(ops.contains(&Op::Order {
            path: vec![],
            from: vec![1, 0]
        }));
        let mut dom = a.clone();
        for op in &ops {
            crate::ui::lanes::render::tests::apply(&mut dom, op);
        }
        assert!(crate::ui::lanes::render::tests::same(&dom, &b), "{ops:?}");
        // Without a name on every child, the list is spliced between what stays at its ends.
        let unnamed = El::g()
            .child(El::new("line"))
            .child(El::new("line").a("x1", 2));
        assert!(matches!(
            &diff(&named(&[(1, 10)]), &unnamed)[..],
            [Op::Splice { at: 0, .. }, ..]
        ));
        let a = El::new("text").a("x", 1).a("y", 2).text("old");
        let b = El::new("text").a("x", 1).a("dy", 3).text("new");
        assert_eq!(
            diff(&a, &b),
            vec![
                Op::Attr {
                    path: vec![],
                    name: "dy",
                    value: Some(Val::Int(3))
                },
                Op::Attr {
                    path: vec![],
                    name: "y",
                    value: None
                },
                Op::Text {
                    path: vec![],
                    text: "new".into()
                }
            ]
        );
        assert!(matches!(
            &diff(&a, &El::new("rect"))[..],
            [Op::Replace { .. }]
        ));
    }
}
