//! The playground's one state and one message enum. The trace is never stored here: the view
//! derives it from `scenario` with `sim::run`, so the two cannot disagree. `apply` (in
//! `apply.rs`) turns a state and an action into the next state.

use super::fields::Field;
use super::found::Found;
use super::item::Part;
use super::selection::{get, EventRef, InstanceRef, ItemRef, Selection};
use super::tools::{InstanceTool, Tool};
use crate::sim::account::FenceRule;
use crate::sim::presets::{default_scenario, DEFAULT_PRESET};
use crate::sim::scenario::InstanceEvent;
use crate::sim::{Event, Scenario};
use std::rc::Rc;

/// How many edits undo remembers.
pub const UNDO_LIMIT: usize = 100;
/// How far Shift+arrow moves an event.
pub const BIG_STEP_MS: i64 = 10;
/// The longest TTL the settings accept (a minute, far past any preset's axis).
pub const MAX_TTL_MS: u64 = 60_000;

/// What a pointer drag is moving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DragTarget {
    /// A part of a client's or an instance's event.
    Item(ItemRef, Part),
    Playhead,
}

/// A drag in progress. `before` is the scenario when it started, so the whole drag is one
/// undo step and Escape can put everything back; `axis_end_ms` freezes the time axis so it
/// does not rescale under the pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drag {
    pub target: DragTarget,
    /// Pointer time minus the dragged edge's time when the drag began.
    pub grab_offset_ms: i64,
    pub before: Rc<Scenario>,
    pub axis_end_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub scenario: Scenario,
    /// The preset last loaded, if any (the picker shows it).
    pub preset_id: Option<String>,
    /// The selected event, of a client or of an instance.
    pub selection: Selection,
    pub tool: Tool,
    pub playhead_ms: u64,
    pub drag: Option<Drag>,
    /// Earlier scenarios, shared: a state is cloned on every pointer move.
    pub undo: Vec<Rc<Scenario>>,
    pub redo: Vec<Rc<Scenario>>,
    pub readonly: bool,
    /// Width of the timeline in CSS pixels, measured by the view.
    pub width_px: u32,
    /// Bumped when a key press changed which element should have the focus; the view moves
    /// the focus to the selected event in an effect.
    pub focus_ticket: u32,
    /// Why the last edit was refused, in words.
    pub notice: Option<String>,
    /// What a double-click on an instance lane adds.
    pub instance_tool: InstanceTool,
    /// Redlock's instances drawn as one "lock service" lane instead of a lane each.
    pub collapsed: bool,
    /// A link, saved scenario or file that could not be loaded, in words; it stays until a
    /// scenario loads or it is dismissed.
    pub problem: Option<String>,
    /// The last counterexample a search loaded; its faults are marked "found by search" while
    /// its scenario is the one on screen (an undo hides them, a redo shows them again).
    pub found: Option<Rc<Found>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    LoadPreset(String),
    Select(Selection),
    DragStart {
        target: DragTarget,
        pointer_ms: u64,
        axis_end_ms: u64,
    },
    /// The pointer is at `pointer_ms`, over the lane of `client` or of Redlock `instance` (if it
    /// is over either kind of lane).
    DragMove {
        pointer_ms: u64,
        client: Option<usize>,
        instance: Option<usize>,
    },
    DragEnd,
    DragCancel,
    /// A key press: move a part of an event by `delta_ms`.
    Nudge {
        target: ItemRef,
        part: Part,
        delta_ms: i64,
    },
    /// A key press: move an event `by` lanes of its kind up (negative) or down.
    ShiftLane {
        target: ItemRef,
        by: i64,
    },
    Add {
        client: usize,
        tool: Tool,
        at_ms: u64,
    },
    Remove(ItemRef),
    /// The inspector set a field of an event to the text a person typed or picked; text that is
    /// no valid value is refused with a notice naming the field.
    SetField {
        target: ItemRef,
        field: Field,
        value: String,
    },
    AddClient,
    RemoveClient(usize),
    SetFenceRule(FenceRule),
    SetTtl(u64),
    SetFirstFence(u64),
    SetWatchdog(bool),
    SetPlayhead(u64),
    Resize(u32),
    Undo,
    Redo,
    /// Edits of a Redlock service: its settings and adding an instance event (see `service`).
    Instance(InstanceAction),
    SetCollapsed(bool),
    /// A whole scenario from a link or a file, as one undo step.
    LoadScenario(Box<Scenario>),
    /// A counterexample a search found, as one undo step.
    LoadFound(Box<Found>),
    /// Shows (or, with `None`, dismisses) why a link, saved scenario or file was not loaded.
    Problem(Option<String>),
}

/// Edits of a Redlock lock service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceAction {
    Add {
        instance: usize,
        tool: InstanceTool,
        at_ms: u64,
    },
    /// 0: a single Redis; otherwise Redlock over that many instances.
    SetService(usize),
    /// An etcd cluster of three members running this server version.
    SetEtcd(crate::sim::scenario::EtcdVersion),
    /// A PostgreSQL advisory lock (lock 42, session level) in place of the Redis lock.
    SetAdvisory,
    /// The advisory lock held by the session or by one transaction.
    SetAdvisoryLevel(crate::sim::scenario::AdvisoryLevel),
    /// `idle_session_timeout` (`in_transaction` false) or `idle_in_transaction_session_timeout`
    /// in ms, as typed; 0 or nothing turns it off, other text that is no time is refused.
    SetIdleTimeout {
        in_transaction: bool,
        value: String,
    },
    /// Whether each debit is an `UPDATE` on the lock holder's own session.
    SetWriteInSession(bool),
    /// A ZooKeeper ensemble running the lock recipe (a 5 ms tick, the czxid as the fence) in
    /// place of the lock service.
    SetZookeeper,
    /// The ensemble's `tickTime` in ms, as typed; text that is no tick is refused by name.
    SetTickTime(String),
    /// Which number of its lock node the client sends as the fence.
    SetZkFence(crate::sim::scenario::ZkFence),
    /// What the client does while Curator says SUSPENDED.
    SetOnSuspended(crate::sim::scenario::OnSuspended),
    /// A database lease row (the database's clock judging expiry, no guard) in place of the
    /// lock service.
    SetLease,
    /// Whose clock judges that a lease has run out.
    SetLeaseExpiry(crate::sim::scenario::LeaseExpiry),
    /// Where the debit checks the generation besides the account row.
    SetLeaseGuard(crate::sim::scenario::LeaseGuard),
    SetParallel(bool),
    SetFence(bool),
    /// An instance measures its TTLs with a monotonic clock, which its clock jumps do not move.
    SetMonotonic {
        instance: usize,
        on: bool,
    },
    /// An instance's one-way latency, as typed; text that is no valid latency is refused.
    SetLatency {
        instance: usize,
        value: String,
    },
}

impl State {
    /// A fresh state showing `scenario`.
    pub fn new(scenario: Scenario, preset_id: Option<String>, readonly: bool) -> State {
        State {
            playhead_ms: scenario.end_ms / 2,
            scenario,
            preset_id,
            selection: Selection::None,
            tool: Tool::Debit,
            drag: None,
            undo: Vec::new(),
            redo: Vec::new(),
            readonly,
            width_px: 960,
            focus_ticket: 0,
            notice: None,
            instance_tool: InstanceTool::ClockJump,
            collapsed: false,
            problem: None,
            found: None,
        }
    }

    /// The default page: the preset a newcomer sees first.
    pub fn default_page() -> State {
        State::new(default_scenario(), Some(DEFAULT_PRESET.to_string()), false)
    }

    pub fn event(&self, r: EventRef) -> Option<&Event> {
        get(&self.scenario, r)
    }

    /// The marks of the counterexample on screen, if the scenario on screen is one.
    pub fn found_here(&self) -> Option<&Found> {
        self.found
            .as_deref()
            .filter(|f| f.scenario == self.scenario)
    }

    pub fn instance_event(&self, r: InstanceRef) -> Option<&InstanceEvent> {
        get(&self.scenario, r)
    }
}
