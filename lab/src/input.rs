//! What `fencing-lab replay` reads: a scenario as JSON, or a share link copied from the page
//! (the whole address, its hash, or `s=1.…`). Errors name the field at fault, as the page does.

use fencing_playground::link;
use fencing_playground::sim::Scenario;

/// A scenario from a JSON text or a share link.
pub fn read_scenario(text: &str) -> Result<Scenario, String> {
    let text = text.trim();
    if text.starts_with('{') {
        return Scenario::from_json(text).map_err(|e| e.to_string());
    }
    let hash = text.rsplit_once('#').map_or(text, |(_, h)| h);
    link::decode(hash).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;

    #[test]
    fn a_link_in_any_form_and_the_json_give_the_same_scenario() {
        let s = preset("redlock-restart").expect("preset");
        let hash = link::encode(&s);
        for text in [
            format!("https://example.org/fencing/#{hash}"),
            format!("#{hash}"),
            hash.clone(),
            format!("  {hash}\n"),
            s.to_json(),
        ] {
            assert_eq!(read_scenario(&text).as_ref(), Ok(&s), "{text:.60}");
        }
    }

    #[test]
    fn bad_input_is_named() {
        for (text, want) in [
            ("https://example.org/#s=1.@@@", "link"),
            ("#t=1.abc", "link"),
            (
                "{\"version\":1,\"clients\":[{\"name\":\"\"}]}",
                "clients[0].name",
            ),
            ("{\"version\":1,", "JSON"),
        ] {
            let e = read_scenario(text).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
