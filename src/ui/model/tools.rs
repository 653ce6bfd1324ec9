//! What the palettes add, and what a double-click on a lane adds: a tool per kind of client
//! event and per kind of instance event, each with the label its button shows (and carries
//! while it is dragged) and the event it creates.

use crate::sim::scenario::{Control, InstanceEvent, Offers, MAX_TIME_MS};
use crate::sim::{Event, PauseCause, ReleaseKind};

/// How long a new crash keeps an instance down, and a new partition lasts.
const NEW_DOWN_MS: u64 = 10;
const NEW_CUT_MS: u64 = 40;

/// How long a new GC pause lasts: longer than the TTL by half of it, within the time limit.
fn new_pause_ms(ttl_ms: u64) -> u64 {
    ttl_ms.saturating_add((ttl_ms / 2).max(1)).min(MAX_TIME_MS)
}

/// What the palette adds, and what a double-click on a lane adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Acquire,
    Debit,
    DelayedDebit,
    Pause,
    CheckThenWrite,
    Renew,
    Release,
    BareDel,
    Crash,
}

impl Tool {
    pub const ALL: [Tool; 9] = [
        Tool::Acquire,
        Tool::Debit,
        Tool::DelayedDebit,
        Tool::Pause,
        Tool::CheckThenWrite,
        Tool::Renew,
        Tool::Release,
        Tool::BareDel,
        Tool::Crash,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Tool::Acquire => "acquire",
            Tool::Debit => "debit 10",
            Tool::DelayedDebit => "slow debit",
            Tool::Pause => "GC pause",
            Tool::CheckThenWrite => "isHeld() + debit",
            Tool::Renew => "renew",
            Tool::Release => "release",
            Tool::BareDel => "bare DEL",
            Tool::Crash => "crash",
        }
    }

    /// The lock control the tool uses, which a service may refuse (`LockService::offer`).
    pub fn control(self) -> Option<Control> {
        match self {
            Tool::Renew => Some(Control::Renew),
            Tool::BareDel => Some(Control::BareDel),
            Tool::Acquire
            | Tool::Debit
            | Tool::DelayedDebit
            | Tool::Pause
            | Tool::CheckThenWrite
            | Tool::Release
            | Tool::Crash => None,
        }
    }

    /// Whether a service that offers `offers` takes the event this tool adds.
    pub fn offered(self, offers: Offers) -> bool {
        self.control().is_none_or(|c| offers.has(c))
    }

    /// The tool a palette button carries while it is dragged onto the timeline (its label).
    pub fn from_label(label: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.label() == label)
    }

    /// The event this tool creates at `at_ms` under a lease of `ttl_ms`. A new GC pause lasts
    /// one and a half TTLs, so by default it outlives any lease its client holds when it
    /// starts: the pause that makes the point.
    pub fn event(self, at_ms: u64, ttl_ms: u64) -> Event {
        match self {
            Tool::Acquire => Event::Acquire { at_ms },
            Tool::Debit => Event::Debit {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
            },
            Tool::DelayedDebit => Event::Debit {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 20,
            },
            Tool::Pause => Event::Pause {
                at_ms,
                duration_ms: new_pause_ms(ttl_ms),
                cause: PauseCause::Gc,
            },
            Tool::CheckThenWrite => Event::CheckThenWrite {
                at_ms,
                amount: 10,
                idempotency_key: None,
                delay_ms: 0,
                gap_ms: 2,
            },
            Tool::Renew => Event::Renew { at_ms },
            Tool::Release => Event::Release {
                at_ms,
                mode: ReleaseKind::TokenChecked,
            },
            Tool::BareDel => Event::Release {
                at_ms,
                mode: ReleaseKind::BareDel,
            },
            Tool::Crash => Event::Crash { at_ms },
        }
    }
}

/// What the instance palette adds, and what a double-click on an instance lane adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceTool {
    ClockJump,
    Crash,
    Partition,
}

impl InstanceTool {
    pub const ALL: [InstanceTool; 3] = [
        InstanceTool::ClockJump,
        InstanceTool::Crash,
        InstanceTool::Partition,
    ];

    pub fn label(self) -> &'static str {
        match self {
            InstanceTool::ClockJump => "clock jump",
            InstanceTool::Crash => "crash + restart",
            InstanceTool::Partition => "partition",
        }
    }

    /// The tool an instance palette button carries while it is dragged (its label).
    pub fn from_label(label: &str) -> Option<InstanceTool> {
        InstanceTool::ALL.into_iter().find(|t| t.label() == label)
    }

    /// The event this tool creates at `at_ms`. A new jump steps the clock by one TTL, enough
    /// to expire any key the instance holds; a new crash forgets keys (no persistence).
    pub fn event(self, at_ms: u64, ttl_ms: u64) -> InstanceEvent {
        match self {
            InstanceTool::ClockJump => InstanceEvent::ClockJump {
                at_ms,
                by_ms: ttl_ms.min(MAX_TIME_MS) as i64,
                over_ms: 0,
            },
            InstanceTool::Crash => InstanceEvent::Crash {
                at_ms,
                down_ms: NEW_DOWN_MS,
                persistent: false,
            },
            InstanceTool::Partition => InstanceEvent::Partition {
                at_ms,
                duration_ms: NEW_CUT_MS,
                client: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dragged_palette_button_names_its_tool() {
        for tool in Tool::ALL {
            assert_eq!(Tool::from_label(tool.label()), Some(tool));
        }
        assert_eq!(Tool::from_label(""), None);
        assert_eq!(Tool::from_label("GC"), None);
    }

    #[test]
    fn a_new_gc_pause_outlives_the_ttl() {
        for ttl in [1, 30, 60, MAX_TIME_MS] {
            match Tool::Pause.event(5, ttl) {
                Event::Pause { duration_ms, .. } => {
                    assert!(duration_ms > ttl || duration_ms == MAX_TIME_MS, "TTL {ttl}");
                }
                other => panic!("a pause tool made {other:?}"),
            }
        }
        assert_eq!(
            Tool::Pause.event(5, 30),
            Event::Pause {
                at_ms: 5,
                duration_ms: 45,
                cause: PauseCause::Gc
            }
        );
    }

    #[test]
    fn a_dragged_instance_palette_button_names_its_tool() {
        for tool in InstanceTool::ALL {
            assert_eq!(InstanceTool::from_label(tool.label()), Some(tool));
        }
        assert_eq!(InstanceTool::from_label("crash"), None);
    }
}
