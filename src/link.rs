//! Share links: a whole scenario in the URL hash, as `#s=1.<base64url of its JSON>`. The `1` is
//! the link format's own version; the JSON inside carries the scenario version, which
//! `Scenario::from_json` migrates. Plain Rust, so it is tested natively.

use crate::sim::{Scenario, ScenarioError};

/// The link format this build writes.
pub const LINK_VERSION: u32 = 1;
const PREFIX: &str = "s=";
/// Links longer than this are refused before decoding: about what a browser keeps of an
/// address (Chromium: 2 MB). A scenario of 10 000 ordinary events fits (a test below builds
/// one); the largest the limits allow, every field at its longest, does not, and its link is
/// refused with a message saying how long it is, so such a scenario travels as a file.
pub const MAX_LINK_CHARS: usize = 2_000_000;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn link_error(message: impl Into<String>) -> ScenarioError {
    ScenarioError::new("link", message)
}

/// The hash (without `#`) that restores `scenario` exactly.
pub fn encode(scenario: &Scenario) -> String {
    format!(
        "{PREFIX}{LINK_VERSION}.{}",
        base64url(scenario.to_json().as_bytes())
    )
}

/// Reads a hash (with or without the leading `#`) back into a validated scenario.
pub fn decode(hash: &str) -> Result<Scenario, ScenarioError> {
    let hash = hash.trim().trim_start_matches('#');
    if hash.len() > MAX_LINK_CHARS {
        return Err(link_error(format!(
            "the link is {} characters long; at most {MAX_LINK_CHARS} are read",
            hash.len()
        )));
    }
    let Some(rest) = hash.strip_prefix(PREFIX) else {
        return Err(link_error("not a playground link (expected #s=1.…)"));
    };
    let Some((version, payload)) = rest.split_once('.') else {
        return Err(link_error(
            "missing the version before the data (expected s=1.…)",
        ));
    };
    match version.parse::<u32>() {
        Ok(LINK_VERSION) => {}
        Ok(v) if v > LINK_VERSION => {
            return Err(link_error(format!(
                "link version {v} is newer than this build reads ({LINK_VERSION})"
            )))
        }
        _ => return Err(link_error(format!("unknown link version {version:?}"))),
    }
    let bytes = unbase64url(payload).ok_or_else(|| {
        link_error("the data is damaged (not base64url); was the link cut short?")
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| link_error("the data is damaged (not UTF-8 text); was the link cut short?"))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        if e.is_eof() {
            link_error(format!(
                "the scenario in it ends early ({e}); the link is incomplete: was it cut short?"
            ))
        } else {
            link_error(format!("the scenario in it is not valid JSON ({e})"))
        }
    })?;
    Scenario::from_value(value)
}

fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn unbase64url(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::presets;

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            let text = base64url(&bytes);
            assert!(text.bytes().all(|c| ALPHABET.contains(&c)));
            assert_eq!(unbase64url(&text), Some(bytes));
        }
        assert_eq!(base64url(b"Man"), "TWFu");
    }

    #[test]
    fn every_preset_survives_a_link() {
        for p in presets() {
            let hash = encode(&p.scenario);
            assert!(hash.starts_with("s=1."));
            assert_eq!(decode(&format!("#{hash}")), Ok(p.scenario), "{}", p.id);
        }
    }

    #[test]
    fn broken_links_say_what_is_wrong() {
        let good = encode(&presets()[0].scenario);
        let cases = [
            ("#hello", "link: not a playground link"),
            ("#s=9.abcd", "link: link version 9 is newer"),
            ("#s=x.abcd", "link: unknown link version"),
            ("#s=1.a", "link: the data is damaged"),
            ("#s=1.!!!!", "link: the data is damaged"),
            ("#s=1.e30", "version: missing"),
        ];
        for (hash, want) in cases {
            let got = decode(hash).map(|_| ()).unwrap_err().to_string();
            assert!(got.starts_with(want), "{hash}: {got}");
        }
        let cut = &good[..good.len() / 2];
        assert!(decode(cut).is_err());
    }

    #[test]
    fn a_scenario_of_ten_thousand_events_fits_in_a_link() {
        use crate::sim::scenario::{Event, MAX_CLIENTS, MAX_EVENTS, MAX_TIME_MS};
        let mut s = presets()[0].scenario.clone();
        let client = s.clients[0].clone();
        s.clients = (0..MAX_CLIENTS)
            .map(|i| {
                let mut c = client.clone();
                c.name = format!("client {i}");
                c.events = (0..MAX_EVENTS / MAX_CLIENTS)
                    .map(|k| Event::Debit {
                        at_ms: MAX_TIME_MS - k as u64,
                        amount: 1_000,
                        idempotency_key: Some(format!("payment-{k}")),
                        delay_ms: 1_000,
                    })
                    .collect();
                c
            })
            .collect();
        assert_eq!(Scenario::from_json(&s.to_json()), Ok(s.clone()));
        let hash = encode(&s);
        assert!(hash.len() <= MAX_LINK_CHARS, "{} characters", hash.len());
        assert_eq!(decode(&hash), Ok(s));
    }

    #[test]
    fn a_link_cut_short_says_so() {
        let good = encode(&presets()[0].scenario);
        // Every cut that leaves whole base64 groups decodes to JSON that stops early.
        for end in (8..good.len() - 4).step_by(4) {
            let got = decode(&good[..end]).map(|_| ()).unwrap_err().to_string();
            assert!(
                got.starts_with("link: ") && got.contains("was it cut short?"),
                "{end}: {got}"
            );
        }
        let got = decode(&good[..good.len() / 2 / 4 * 4])
            .unwrap_err()
            .to_string();
        assert!(
            got.starts_with("link: the scenario in it ends early (EOF while parsing"),
            "{got}"
        );
    }
}
