//! The first stage's markup, written as text: the heading, the verdict, the "Try it" line and
//! the timeline. It uses the full page's classes, so the same style sheet draws both, and the
//! full page's layout, hit areas, shapes and words (`ui::lanes`), so what is drawn here sits
//! where the full page will draw it. It draws less: no playhead, no message arrows, no
//! selection, and the lanes' handles take the pointer only (the keyboard comes with the full
//! page). Every number and word comes from the runs.

use super::Runs;
use crate::sim::{Event, Scenario};
use crate::ui::lanes::geometry::Layout;
use crate::ui::lanes::render::node::{escape_into, markup_of, El};
use crate::ui::lanes::render::{self, LaneKey, View};
use crate::ui::model::heading::{Heading, EDITED_CAPTION};
use crate::ui::model::selection::Selection;
use std::fmt::Write;

/// The id prefix of the timeline's patterns.
const UID: &str = "fp1";

/// Text made safe for markup (the renderer's one escape).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(&mut out, s);
    out
}

/// The title and the caption (or, once edited, the line that says so).
pub fn head(h: &Heading) -> String {
    let caption = match h {
        Heading::AsWritten { caption, .. } => {
            format!(
                r#"<p class="fp-caption" data-testid="caption">{}</p>"#,
                esc(caption)
            )
        }
        Heading::Edited { .. } => format!(
            r#"<div class="fp-caption fp-edited" data-testid="caption"><p data-testid="edited">{}</p></div>"#,
            esc(EDITED_CAPTION)
        ),
    };
    format!(
        r#"<div class="fp-head"><h2 data-testid="title">{}</h2></div>{caption}"#,
        esc(&h.title())
    )
}

/// The verdict banner's contents (the element itself stays, so a screen reader hears changes):
/// the full page's banner (`render::verdict`), its children written as markup.
pub fn verdict(r: &Runs) -> String {
    markup_of(banner(r).els())
}

/// The class of the verdict banner, as the full page's banner has it.
pub fn verdict_class(r: &Runs) -> String {
    banner(r)
        .get("class")
        .map(|c| c.to_string())
        .unwrap_or_default()
}

/// The full page's verdict banner for these runs.
fn banner(r: &Runs) -> El {
    render::verdict::banner(&r.trace, &r.ghost, &r.contrast)
}

/// "Try it": a drag, the one thing the first stage can do (its buttons come with the full
/// page): the end of the first pause if there is one, else any event. Waking earlier is what
/// can save an unsafe run; a safe one (a link may bring one) is only invited to be changed.
pub fn hint(s: &Scenario, r: &Runs) -> String {
    let pause = s.clients.iter().find_map(|c| {
        c.events.iter().find_map(|e| match e {
            Event::Pause { cause, .. } => Some((esc(&c.name), cause.label())),
            _ => None,
        })
    });
    let (act, watch) = match pause {
        Some((who, cause)) if !r.trace.verdict.safe => (
            format!("drag the right edge of {who}'s {cause} pause to the left"),
            format!(": once {who} wakes before its lease runs out, watch the verdict change."),
        ),
        Some((who, cause)) => (
            format!("drag either edge of {who}'s {cause} pause"),
            ", and watch the verdict and the lanes follow.".to_string(),
        ),
        None => (
            "drag any event along its lane".to_string(),
            ", and watch the verdicts change.".to_string(),
        ),
    };
    format!(r#"<p class="fp-hint" data-testid="hint">Try it: <b>{act}</b>{watch}</p>"#)
}

/// The whole timeline: an SVG as wide as `l` says.
pub fn timeline(l: &Layout, s: &Scenario, r: &Runs) -> String {
    timeline_with(l, &lanes(l, s, r))
}

/// The whole timeline around `lanes`, drawn for `l`.
pub fn timeline_with(l: &Layout, lanes: &[(LaneKey, El)]) -> String {
    let (w, h) = (l.width_px, l.height_px);
    let mut o = String::with_capacity(16 * 1024);
    let _ = write!(
        o,
        r#"<svg class="fp-timeline" data-testid="first-timeline" role="group" aria-label="Timeline: lock service, clients and storage over time" viewBox="0 0 {w} {h}" width="{w}" height="{h}"><defs><pattern id="{UID}-hatch-pause" patternUnits="userSpaceOnUse" width="7" height="7" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="7" class="fp-hatch-pause"/></pattern><pattern id="{UID}-hatch-stale" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(-45)"><line x1="0" y1="0" x2="0" y2="6" class="fp-hatch-stale"/></pattern></defs>"#
    );
    // The axis and the lanes' backgrounds, as the full page draws them (no playhead strip).
    render::ground::ground(l, false).write(&mut o);
    o.push_str(r#"<g class="fp-lanes">"#);
    lanes.iter().for_each(|(_, e)| e.write(&mut o));
    o.push_str("</g></svg>");
    o
}

/// What the lanes are drawn from: the full page's lane renderer, with the pointer only (the
/// keyboard comes with the full page).
pub fn view<'a>(l: &'a Layout, s: &'a Scenario, r: &'a Runs) -> View<'a> {
    View {
        scenario: s,
        trace: &r.trace,
        ghost: &r.ghost,
        contrast: &r.contrast,
        layout: l,
        uid: UID,
        selection: Selection::None,
        playhead_ms: 0,
        handles: true,
        keyboard: false,
    }
}

/// The lanes, from the one lane renderer the full page uses: the lock service, the clients,
/// the storage and the comparison.
pub fn lanes(l: &Layout, s: &Scenario, r: &Runs) -> Vec<(LaneKey, El)> {
    render::drawn(&view(l, s, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::presets;
    use crate::sim::words::verdict_text;

    /// Every element opened is closed, in order (the markup is well formed).
    fn balanced(markup: &str) -> Result<(), String> {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = markup;
        while let Some(at) = rest.find('<') {
            rest = &rest[at + 1..];
            let end = rest.find('>').ok_or("a tag is not closed")?;
            let tag = &rest[..end];
            rest = &rest[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                match open.pop() {
                    Some(o) if o == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            } else if !tag.ends_with('/') {
                let name = tag.split([' ', '>']).next().unwrap_or_default();
                open.push(name);
            }
        }
        if open.is_empty() {
            Ok(())
        } else {
            Err(format!("left open: {open:?}"))
        }
    }

    #[test]
    fn every_client_preset_draws_well_formed_markup_with_its_verdict() {
        for p in presets() {
            if p.scenario.lock.redlock().is_some() {
                continue;
            }
            let f = super::super::First::new(p.scenario.clone(), 700);
            let svg = timeline(&f.layout, &f.scenario, &f.runs);
            balanced(&svg).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let banner = verdict(&f.runs);
            balanced(&banner).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let word = if f.runs.trace.verdict.safe {
                "✓ Safe"
            } else {
                "✗ Unsafe"
            };
            assert!(banner.contains(word), "{}", p.id);
            // Every accepted or rejected write is drawn with the core's words for it.
            for w in &f.runs.trace.writes {
                if let Some(v) = &w.verdict {
                    assert!(svg.contains(&esc(&verdict_text(v))), "{}: {v:?}", p.id);
                }
            }
            for c in &f.scenario.clients {
                for (i, e) in c.events.iter().enumerate() {
                    let id = match e {
                        Event::Pause { .. } => format!("pause-{}-{i}-end", c.name),
                        _ => format!("event-{}-{i}", c.name),
                    };
                    assert!(
                        svg.contains(&format!("data-testid=\"{id}\"")),
                        "{}: {id}",
                        p.id
                    );
                }
            }
        }
    }

    #[test]
    fn the_hint_asks_for_an_earlier_wake_only_where_that_can_save_the_run() {
        let unsafe_run = super::super::First::new(crate::sim::presets::default_scenario(), 700);
        assert!(!unsafe_run.runs.trace.verdict.safe);
        let h = hint(&unsafe_run.scenario, &unsafe_run.runs);
        assert!(
            h.contains("drag the right edge of A's GC pause to the left"),
            "{h}"
        );
        let fenced = crate::sim::presets::preset("gc-pause-fenced").expect("a preset");
        let safe_run = super::super::First::new(fenced, 700);
        assert!(safe_run.runs.trace.verdict.safe);
        let h = hint(&safe_run.scenario, &safe_run.runs);
        assert!(h.contains("drag either edge of A's GC pause"), "{h}");
        assert!(!h.contains("to the left"), "{h}");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc(r#"<b a="1">&"#), "&lt;b a=&quot;1&quot;&gt;&amp;");
    }

    #[test]
    fn an_edited_heading_says_so() {
        let h = Heading::Edited {
            from: "GC pause".into(),
            original: "A takes…".into(),
        };
        let m = head(&h);
        assert!(m.contains("Edited from: GC pause") && m.contains(EDITED_CAPTION));
        assert!(!m.contains("A takes"));
    }
}
