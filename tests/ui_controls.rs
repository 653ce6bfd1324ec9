//! The controls each lock service takes, in headless Chromium: the service picker switches the
//! GC pause story to each of the five services, and the page then shows exactly the controls
//! that service takes (the TTL, the first fence, the watchdog, the renew and bare `DEL`
//! buttons, a release's mode, the compare-and-set rule) and names a debit's token as the
//! service does: a fence, etcd's revision, ZooKeeper's czxid, or none. Each test mounts the app
//! into its own fixture element.
#![cfg(target_arch = "wasm32")]

use crate::common::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// What the page shows for one service: its picker value, then whether the TTL, the first
/// fence, the watchdog, the renew button, the bare `DEL` button (and a release's mode) and the
/// compare-and-set rule are there, and how the narration says a debit's token.
struct Expected {
    service: &'static str,
    ttl: bool,
    first_fence: bool,
    watchdog: bool,
    renew: bool,
    bare_del: bool,
    cas_value: bool,
    /// How the narration says a debit's token; none where the story sends no debit.
    debit: Option<&'static str>,
}

const EXPECTED: [Expected; 5] = [
    Expected {
        service: "0",
        ttl: true,
        first_fence: true,
        watchdog: true,
        renew: true,
        bare_del: true,
        cas_value: true,
        debit: Some("sent a debit of 10 with fence 3"),
    },
    // Over three instances neither client holds a majority when its write falls due, so none
    // is sent (`ui_redlock.rs` reads Redlock's debit words).
    Expected {
        service: "3",
        ttl: true,
        first_fence: true,
        watchdog: true,
        renew: true,
        bare_del: true,
        cas_value: true,
        debit: None,
    },
    Expected {
        service: "etcd-3.5",
        ttl: true,
        first_fence: false,
        watchdog: false,
        renew: true,
        bare_del: false,
        cas_value: false,
        debit: Some("sent a debit of 10 with revision 3"),
    },
    Expected {
        service: "advisory",
        ttl: false,
        first_fence: false,
        watchdog: false,
        renew: false,
        bare_del: false,
        cas_value: false,
        debit: Some("sent a debit of 10 with no fence"),
    },
    Expected {
        service: "zookeeper",
        ttl: true,
        first_fence: false,
        watchdog: false,
        renew: false,
        bare_del: false,
        cas_value: false,
        debit: Some("sent a debit of 10 with czxid 3"),
    },
];

async fn press(root: &Element, testid: &str) {
    get(root, testid)
        .dyn_into::<web_sys::HtmlElement>()
        .expect("a button")
        .click();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn each_service_shows_only_the_controls_it_takes_and_names_its_token() {
    for e in EXPECTED {
        let root = mounted_preset("gc-pause-fenced").await;
        // A renewal on the palette, then the switch: the double-click tool must follow.
        press(&root, "tool-renew").await;
        change(&root, "service", Some(e.service), None).await;
        let s = e.service;
        let has = |testid: &str| find(&root, testid).is_some();
        assert_eq!(has("ttl"), e.ttl, "{s}: TTL");
        assert_eq!(has("first-fence-33"), e.first_fence, "{s}: first fence");
        assert_eq!(has("first-fence-1"), e.first_fence, "{s}: first fence");
        assert_eq!(has("watchdog"), e.watchdog, "{s}: watchdog");
        assert_eq!(has("tool-renew"), e.renew, "{s}: renew");
        assert_eq!(has("tool-bare-DEL"), e.bare_del, "{s}: bare DEL");
        let cas = "[data-testid=\"fence-rule\"] option[value=\"cas_value\"]";
        assert_eq!(count(&root, cas), u32::from(e.cas_value), "{s}: cas_value");
        // What every service takes is always there.
        for always in [
            "tool-acquire",
            "tool-debit-10",
            "tool-release",
            "fence-rule",
        ] {
            assert!(has(always), "{s}: {always}");
        }
        let tool = text(&root, "double-click-tool");
        assert_eq!(tool.contains("renew"), e.renew, "{s}: {tool}");

        // The narration names a debit's token as the service does, and never a fence where
        // the service's token is something else.
        let story = text(&root, "narration");
        if let Some(debit) = e.debit {
            assert!(story.contains(debit), "{s}: {story}");
            if !debit.contains("fence") {
                assert!(!story.contains("debit of 10 with fence"), "{s}: {story}");
            }
        }

        // A new release, selected: its mode is a choice only where there is a bare DEL.
        press(&root, "tool-release").await;
        assert!(
            text(&root, "client-inspector").contains("release"),
            "{s}: {}",
            text(&root, "client-inspector")
        );
        assert_eq!(has("edit-mode"), e.bare_del, "{s}: a release's mode");
        assert!(
            find(&root, "notice").is_none(),
            "{s}: {}",
            text(&root, "notice")
        );
        root.remove();
    }
}
