//! What a lesson is made of: its question's kind, its challenge's goal and what an edit must
//! keep. Plain data, read by the catalog and by the reading of a run in `lessons`.

/// One step of the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lesson {
    /// Its name in links (`#lesson=…`) and in the JS API.
    pub id: &'static str,
    pub title: &'static str,
    /// What the lesson says, in two or three sentences, shown after the reader has answered.
    pub explain: &'static str,
    /// The parts of the seeds' argument it carries (the map from the argument to the lessons).
    pub covers: &'static [&'static str],
    /// The preset the lesson runs.
    pub preset: &'static str,
    /// Asked before the run is shown; `None` only for the last card, which asks the reader to
    /// say the argument out loud.
    pub question: Option<Question>,
    pub challenge: Option<Challenge>,
}

/// What the reader is asked to predict about the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// The account's balance when the run ends.
    FinalBalance,
    /// What the storage does with a client's debit (`nth` from 0, in the order the client
    /// sends them).
    Debit { client: &'static str, nth: usize },
    /// Which client the lock service says holds the lock at an instant.
    HolderAt { at_ms: u64 },
    /// Whether the checker finds the run safe.
    Safe,
}

/// A goal to reach by editing the lesson's scenario, and what the edit must leave alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub text: &'static str,
    pub goal: Goal,
    pub keep: Keep,
}

/// What the edited run must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The checker finds a violation (an update lost, two holders' writes accepted…).
    Unsafe,
    /// The checker finds none, and at least one debit is accepted (a run that refuses every
    /// write is safe and useless).
    SafeWithWork,
}

/// What an edit may not change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The lock's settings (service, TTL, fencing, watchdog, clocks): change the storage or the
    /// timeline.
    Lock,
    /// The storage's settings: change the lock or the timeline.
    Storage,
    /// Both: only the timeline (drag, add or remove events).
    LockAndStorage,
}
