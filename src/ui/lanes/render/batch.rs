//! A frame's writes (`diff::Op`) as one message for the page's JavaScript (`scripts/dom-patch.js`),
//! which makes them all in one call: a list of numbers and one text holding every string. Each
//! write from wasm used to be its own call across the boundary, with its own string to decode and
//! its own `children().item()` walk to the element; at 4× CPU those calls were about as dear as
//! the writes themselves. Pure, so the encoding is tested natively (a decoder below gives the
//! writes back).
//!
//! Numbers, in order. A path is its length and then its indices; a string is its length in UTF-16
//! code units (JavaScript's), its text taken in turn from `text`.
//!
//! | code | write | then |
//! |---:|---|---|
//! | 0 | start at the root's child `i` (a lane) | `i` |
//! | 1 | set an attribute | path, name, value |
//! | 2 | remove an attribute | path, name |
//! | 3 | a leaf's text | path, text |
//! | 4 | children in a new order | path, count, `from`… |
//! | 5 | children as markup | path, markup |
//! | 6 | splice children | path, at, remove, markup |
//! | 7 | the element as markup | path, markup |

use super::diff::Op;
use super::node::Val;

pub const LANE: u32 = 0;
pub const SET: u32 = 1;
pub const REMOVE: u32 = 2;
pub const TEXT: u32 = 3;
pub const ORDER: u32 = 4;
pub const CHILDREN: u32 = 5;
pub const SPLICE: u32 = 6;
pub const REPLACE: u32 = 7;

/// Writes on their way to the DOM.
#[derive(Default, Debug)]
pub struct Batch {
    pub ops: Vec<u32>,
    pub text: String,
    /// How many writes it holds.
    pub writes: usize,
    /// Whether one of them puts children in a new order (which may move the focused element).
    pub reorders: bool,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn clear(&mut self) {
        self.ops.clear();
        self.text.clear();
        self.writes = 0;
        self.reorders = false;
    }

    /// The writes after this go to the root's child `i`.
    pub fn lane(&mut self, i: usize) {
        self.ops.push(LANE);
        self.ops.push(u32::try_from(i).unwrap_or(u32::MAX));
    }

    pub fn push(&mut self, op: &Op) {
        self.writes += 1;
        match op {
            Op::Attr { path, name, value } => {
                self.ops.push(if value.is_some() { SET } else { REMOVE });
                self.path(path);
                self.str(name);
                if let Some(v) = value {
                    self.val(v);
                }
            }
            Op::Text { path, text } => {
                self.ops.push(TEXT);
                self.path(path);
                self.str(text);
            }
            Op::Order { path, from } => {
                self.reorders = true;
                self.ops.push(ORDER);
                self.path(path);
                self.ops.push(from.len() as u32);
                self.ops.extend(from.iter().map(|&i| u32::from(i)));
            }
            Op::Children { path, markup } => {
                self.ops.push(CHILDREN);
                self.path(path);
                self.str(markup);
            }
            Op::Splice {
                path,
                at,
                remove,
                markup,
            } => {
                self.ops.push(SPLICE);
                self.path(path);
                self.ops.push(u32::from(*at));
                self.ops.push(u32::from(*remove));
                self.str(markup);
            }
            Op::Replace { path, markup } => {
                self.ops.push(REPLACE);
                self.path(path);
                self.str(markup);
            }
        }
    }

    fn path(&mut self, p: &[u16]) {
        self.ops.push(p.len() as u32);
        self.ops.extend(p.iter().map(|&i| u32::from(i)));
    }

    fn str(&mut self, s: &str) {
        self.ops.push(utf16_len(s));
        self.text.push_str(s);
    }

    /// A number is written straight into the text (formatted on the stack, without
    /// `core::fmt`): no string of its own.
    fn val(&mut self, v: &Val) {
        v.with_str(|s| self.str(s));
    }
}

fn utf16_len(s: &str) -> u32 {
    let n = if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    };
    n as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::lanes::render::diff::diff;
    use crate::ui::lanes::render::node::El;

    /// What the page's JavaScript reads from a batch: each write, with the lane it is in.
    fn decode(b: &Batch) -> Vec<(Option<u32>, Op)> {
        let utf16: Vec<u16> = b.text.encode_utf16().collect();
        let (mut i, mut o, mut lane) = (0, 0, None);
        let mut out = Vec::new();
        let num = |i: &mut usize| {
            *i += 1;
            b.ops[*i - 1]
        };
        while i < b.ops.len() {
            let code = num(&mut i);
            if code == LANE {
                lane = Some(num(&mut i));
                continue;
            }
            let d = num(&mut i) as usize;
            let path: Vec<u16> = (0..d).map(|_| num(&mut i) as u16).collect();
            let mut s = |i: &mut usize| {
                let n = num(i) as usize;
                o += n;
                String::from_utf16(&utf16[o - n..o]).expect("whole characters")
            };
            let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
            let op = match code {
                SET => Op::Attr {
                    path,
                    name: leak(s(&mut i)),
                    value: Some(Val::Text(s(&mut i))),
                },
                REMOVE => Op::Attr {
                    path,
                    name: leak(s(&mut i)),
                    value: None,
                },
                TEXT => Op::Text {
                    path,
                    text: s(&mut i),
                },
                ORDER => {
                    let n = num(&mut i);
                    Op::Order {
                        path,
                        from: (0..n).map(|_| num(&mut i) as u16).collect(),
                    }
                }
                CHILDREN => Op::Children {
                    path,
                    markup: s(&mut i),
                },
                SPLICE => Op::Splice {
                    path,
                    at: num(&mut i) as u16,
                    remove: num(&mut i) as u16,
                    markup: s(&mut i),
                },
                REPLACE => Op::Replace {
                    path,
                    markup: s(&mut i),
                },
                other => panic!("unknown code {other}"),
            };
            out.push((lane, op));
        }
        assert_eq!(o, utf16.len(), "every string is read");
        out
    }

    fn lane(xs: &[(usize, i32)], name: &str) -> El {
        El::g()
            .a("class", "lane")
            .a("aria-label", name.to_string())
            .child(El::new("text").text(name))
            .child(
                El::g().children(
                    xs.iter()
                        .map(|&(k, x)| El::new("rect").a("x", x).a("width", 4).key(k)),
                ),
            )
    }

    #[test]
    fn every_kind_of_write_reads_back_as_it_was() {
        let pairs = [
            // attributes (a number, a word and a text with characters outside ASCII) and a text
            (
                lane(&[(0, 1), (1, 5)], "A"),
                lane(&[(0, -12), (1, 5)], "Ä → 🔒 \"B\""),
            ),
            // a new order
            (
                lane(&[(0, 1), (1, 5), (2, 9)], "A"),
                lane(&[(2, 9), (0, 1), (1, 5)], "A"),
            ),
            // a list that grew and one that shrank
            (
                lane(&[(0, 1), (2, 9)], "A"),
                lane(&[(0, 1), (1, 5), (2, 9)], "A"),
            ),
            (lane(&[(0, 1), (1, 5), (2, 9)], "A"), lane(&[(2, 9)], "A")),
            // another element, and an attribute taken away
            (El::g(), El::new("rect").a("x", 3)),
            (El::g().a("class", "x"), El::g()),
            (El::g().text("a"), El::g().child(El::new("rect"))),
        ];
        let mut b = Batch::default();
        let mut want = Vec::new();
        for (k, (old, new)) in pairs.iter().enumerate() {
            b.lane(k);
            let ops = diff(old, new);
            assert!(!ops.is_empty(), "pair {k} changes something");
            for op in &ops {
                b.push(op);
                want.push((Some(k as u32), op.clone()));
            }
        }
        let got = decode(&b);
        assert_eq!(got, want);
        assert_eq!(b.writes, want.len());
        assert!(b.reorders);
        for kind in [SET, REMOVE, TEXT, ORDER, CHILDREN, SPLICE, REPLACE] {
            assert!(
                b.ops.contains(&kind),
                "the pairs above make a write of code {kind}"
            );
        }
    }

    #[test]
    fn a_cleared_batch_is_empty_and_writes_no_order() {
        let mut b = Batch::default();
        b.lane(1);
        b.push(&Op::Order {
            path: vec![],
            from: vec![1, 0],
        });
        b.clear();
        assert!(b.is_empty() && b.text.is_empty() && b.writes == 0 && !b.reorders);
        assert!(decode(&b).is_empty());
    }

    #[test]
    fn lengths_count_javascript_code_units() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("Ä"), 1);
        assert_eq!(utf16_len("🔒"), 2);
    }
}
