//! Where a scenario comes from and goes to outside the page: the URL hash (share links) and
//! localStorage (autosave). The browser calls live in effects in `sync.rs`; the decisions are
//! here, as plain functions of text, so a bad link or corrupt saved data is tested natively and
//! always ends in a working state with a notice, never a blank page.

use super::heading::preset_of;
use super::mount::{initial_state, MountOptions};
use super::state::{Action, State};
use crate::link;
use crate::sim::Scenario;

/// The localStorage key of the autosaved scenario. The JSON inside carries its own version, which
/// `Scenario::from_json` migrates; the `v1` is for the day the stored shape itself changes.
pub const STORAGE_KEY: &str = "fencing-playground:v1";

/// The first state of a mount that may read the page's hash and saved scenario. A link wins
/// over the saved scenario; a bad link or bad saved data gives the default page with a notice
/// that names the problem.
pub fn startup(
    options: &MountOptions,
    hash: Option<&str>,
    saved: Option<&str>,
) -> Result<State, String> {
    let hash = hash.map(|h| h.trim().trim_start_matches('#')).unwrap_or("");
    if options.share && !hash.is_empty() {
        return Ok(match link::decode(hash) {
            Ok(s) => loaded(s, options.readonly),
            Err(e) => with_problem(format!(
                "This link could not be opened ({e}). Showing the default scenario instead."
            )),
        });
    }
    if let (true, Some(text)) = (options.autosave, saved) {
        return Ok(match Scenario::from_json(text) {
            Ok(s) => loaded(s, options.readonly),
            Err(e) => with_problem(format!(
                "Your saved scenario could not be restored ({e}). Showing the default scenario instead."
            )),
        });
    }
    initial_state(options)
}

fn loaded(s: Scenario, readonly: bool) -> State {
    let id = preset_of(&s).map(str::to_string);
    State::new(s, id, readonly)
}

fn with_problem(problem: String) -> State {
    State {
        problem: Some(problem),
        ..State::default_page()
    }
}

/// The hash (with `#`) that restores `s`.
pub fn hash_for(s: &Scenario) -> String {
    format!("#{}", link::encode(s))
}

/// The page address with its hash replaced by the one for `s`: what "Copy link" copies.
pub fn share_url(href: &str, s: &Scenario) -> String {
    let base = href.split_once('#').map_or(href, |(b, _)| b);
    format!("{base}{}", hash_for(s))
}

/// What a `hashchange` to `hash` should do, given the hash this mount wrote last: nothing when
/// it is ours or empty, load the scenario of a good link, and keep the scenario but say why
/// for a bad one.
pub fn hash_action(hash: &str, written: &str) -> Option<Action> {
    let bare = hash.trim().trim_start_matches('#');
    if bare.is_empty() || bare == written.trim_start_matches('#') {
        return None;
    }
    Some(match link::decode(bare) {
        Ok(s) => Action::LoadScenario(Box::new(s)),
        Err(e) => Action::Problem(Some(format!(
            "This link could not be opened ({e}). The scenario was left as it was."
        ))),
    })
}

/// What an imported file should do: load its scenario, or keep the current one and name the
/// field at fault.
pub fn import_action(file_name: &str, text: &str) -> Action {
    match Scenario::from_json(text) {
        Ok(s) => Action::LoadScenario(Box::new(s)),
        Err(e) => Action::Problem(Some(format!(
            "{file_name} could not be imported: {e}. The scenario was left as it was."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::preset;
    use crate::ui::model::apply::apply;

    fn page() -> MountOptions {
        MountOptions {
            share: true,
            autosave: true,
            ..Default::default()
        }
    }

    fn edited() -> Scenario {
        let mut s = preset("bare-del").unwrap();
        s.clients[0].name = "<img src=x onerror=alert(1)>".into();
        s
    }

    #[test]
    fn a_link_wins_over_the_saved_scenario() {
        let saved = preset("contract-1-nx").unwrap().to_json();
        let s = startup(&page(), Some(&hash_for(&edited())), Some(&saved)).unwrap();
        assert_eq!(s.scenario, edited());
        // An edited preset: the picker names the preset it was edited from, as the title does.
        assert_eq!(s.preset_id.as_deref(), Some("bare-del"));
        let mut own = edited();
        own.name = "Ours".into();
        let s = startup(&page(), Some(&hash_for(&own)), Some(&saved)).unwrap();
        assert_eq!(s.preset_id, None);
        assert_eq!(s.problem, None);
        let s = startup(&page(), Some("#"), Some(&saved)).unwrap();
        assert_eq!(s.preset_id.as_deref(), Some("contract-1-nx"));
        let s = startup(&page(), None, None).unwrap();
        assert_eq!(
            s.preset_id.as_deref(),
            Some(crate::sim::presets::DEFAULT_PRESET)
        );
    }

    #[test]
    fn embeds_ignore_the_hash_and_the_saved_scenario() {
        let opts = MountOptions {
            preset: Some("bare-del".into()),
            ..Default::default()
        };
        let s = startup(&opts, Some("#s=1.garbage"), Some("{")).unwrap();
        assert_eq!(s.preset_id.as_deref(), Some("bare-del"));
        assert_eq!(s.problem, None);
    }

    #[test]
    fn bad_links_and_bad_saved_data_name_the_problem_and_show_the_default() {
        let cases = [
            (
                Some("#s=1.!!!"),
                None,
                "This link could not be opened (link: the data is damaged",
            ),
            (
                Some("#hello"),
                None,
                "This link could not be opened (link: not a playground link",
            ),
            (
                None,
                Some("{not json"),
                "Your saved scenario could not be restored (",
            ),
            (
                None,
                Some(r#"{"version":99,"clients":[]}"#),
                "Your saved scenario could not be restored (version:",
            ),
            (
                None,
                Some(
                    r#"{"version":1,"clients":[{"name":"A","events":[{"kind":"warp","atMs":1}]}]}"#,
                ),
                "Your saved scenario could not be restored (clients[0].events[0]",
            ),
        ];
        for (hash, saved, want) in cases {
            let s = startup(&page(), hash, saved).unwrap();
            let problem = s.problem.clone().unwrap_or_default();
            assert!(problem.starts_with(want), "{hash:?} {saved:?}: {problem}");
            assert!(problem.ends_with("Showing the default scenario instead."));
            assert_eq!(
                s.preset_id.as_deref(),
                Some(crate::sim::presets::DEFAULT_PRESET)
            );
        }
    }

    #[test]
    fn share_urls_replace_the_hash() {
        let s = edited();
        let want = format!("http://h/p/index.html?x=1#{}", link::encode(&s));
        assert_eq!(share_url("http://h/p/index.html?x=1", &s), want);
        assert_eq!(share_url("http://h/p/index.html?x=1#s=1.old", &s), want);
    }

    #[test]
    fn hash_changes_load_good_links_and_report_bad_ones() {
        let mine = hash_for(&edited());
        assert_eq!(hash_action(&mine, &mine), None);
        assert_eq!(hash_action("", &mine), None);
        let other = preset("contract-1-nx").unwrap();
        let state = State::default_page();
        match hash_action(&hash_for(&other), &mine) {
            Some(a @ Action::LoadScenario(_)) => {
                let next = apply(&state, a);
                assert_eq!(next.scenario, other);
                assert_eq!(next.preset_id.as_deref(), Some("contract-1-nx"));
                assert_eq!(next.undo.len(), 1);
            }
            a => panic!("{a:?}"),
        }
        let Some(a @ Action::Problem(Some(_))) = hash_action("#s=1.%%", &mine) else {
            panic!("a bad link must report a problem");
        };
        let next = apply(&state, a);
        assert_eq!(next.scenario, state.scenario);
        assert!(next
            .problem
            .as_deref()
            .unwrap_or_default()
            .contains("link: the data is damaged"));
    }

    #[test]
    fn imports_name_the_field_at_fault_and_keep_the_scenario() {
        let state = State::default_page();
        let bad =
            r#"{"version":1,"clients":[{"name":"A","events":[{"kind":"debit","atMs":"soon"}]}]}"#;
        let next = apply(&state, import_action("bad.json", bad));
        assert_eq!(next.scenario, state.scenario);
        let p = next.problem.clone().unwrap_or_default();
        assert!(
            p.starts_with("bad.json could not be imported: clients[0].events[0]"),
            "{p}"
        );
        let good = apply(&next, import_action("ok.json", &edited().to_json()));
        assert_eq!(good.scenario, edited());
        assert_eq!(good.problem, None);
    }
}
