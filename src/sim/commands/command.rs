//! One entry of a run's command list: when it happens, whose it is, the trace step it belongs
//! to, what the lab does for it, and the lines the page shows. The list is derived from a trace
//! (`commands::commands`); the lab replays the `act`s against real servers and renders what it
//! saw with the same words, so its lines and these can be compared one for one.

use super::ops::{Debit, DebitEnd, Line, RedisCmd, RedisReply};

/// Whose command a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// Before the run: the servers' starting state.
    Setup,
    Client(usize),
    /// A lock instance's own event (a crash, a restart).
    Instance(usize),
}

/// What the lab does for one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Act {
    /// A Redis command to lock instance `instance` (0 for a single Redis). `round` is the
    /// Redlock attempt (index into `Trace::acquisitions`) whose verdict counts the reply, and
    /// `reply_at_ms` when the reply reaches the client.
    Redis {
        instance: usize,
        cmd: RedisCmd,
        reply: RedisReply,
        round: Option<usize>,
        reply_at_ms: u64,
    },
    /// A setup statement for the storage.
    Sql(String),
    /// The client attaches its token to debit `write` and sends it.
    Send { write: usize },
    /// Debit `write` reaches the storage and runs as one transaction.
    Store {
        write: usize,
        debit: Debit,
        end: DebitEnd,
    },
    /// The client judges Redlock attempt `acquisition`: votes, elapsed time, validity.
    Judge { acquisition: usize },
    /// The client forgets the lock it held (after a release).
    Forget,
    /// The client crashes: it closes its connections and sends nothing more.
    Crash,
    /// A lock instance goes down (killed), keeping its keys only when `persistent`.
    Down { instance: usize, persistent: bool },
    /// A lock instance comes back.
    Up { instance: usize, persistent: bool },
    /// Something a person should read that asks nothing of a server (a pause, a skip).
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub at_ms: u64,
    pub who: Who,
    /// The trace step this entry belongs to, so the page can light it up with the step.
    pub step: Option<usize>,
    pub act: Act,
    pub lines: Vec<Line>,
}

impl Command {
    /// A Redis command with its reply as one line.
    pub fn redis(
        at_ms: u64,
        who: Who,
        step: Option<usize>,
        (instance, cmd, reply): (usize, RedisCmd, RedisReply),
        (round, reply_at_ms): (Option<usize>, u64),
    ) -> Command {
        let lines = vec![Line::new(cmd.text(), reply.text())];
        Command {
            at_ms,
            who,
            step,
            act: Act::Redis {
                instance,
                cmd,
                reply,
                round,
                reply_at_ms,
            },
            lines,
        }
    }

    /// An entry that only says something.
    pub fn note(at_ms: u64, who: Who, step: Option<usize>, text: impl Into<String>) -> Command {
        Command {
            at_ms,
            who,
            step,
            act: Act::Note,
            lines: vec![Line::note(text)],
        }
    }

    /// An entry with an act and a comment line (or none, for an empty `text`).
    pub fn act(at_ms: u64, who: Who, step: Option<usize>, act: Act, text: &str) -> Command {
        Command {
            at_ms,
            who,
            step,
            act,
            lines: if text.is_empty() {
                Vec::new()
            } else {
                vec![Line::note(text)]
            },
        }
    }

    /// The client a command belongs to, if any.
    pub fn client(&self) -> Option<usize> {
        match self.who {
            Who::Client(c) => Some(c),
            _ => None,
        }
    }
}
