//! The lessons, in the order of the argument. Each names its preset and the kind of question;
//! what the reader is asked and the right answer come from the run (`super::predict`).

use super::kinds::{Challenge, Goal, Keep, Lesson, Question};

pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "lease-not-mutex",
        title: "A lock with a TTL is a lease",
        explain: "SET NX keeps a second client out only while the lease is live. When the TTL \
                  runs out the lock belongs to whoever asks next, whether or not the first \
                  holder has finished: the TTL frees a lock a crashed holder would keep forever, \
                  and it frees it from a holder that is merely slow just the same.",
        covers: &[
            "a SET NX PX lock is a lease, not mutual exclusion",
            "contract 1: while the lease is live, B cannot acquire",
            "contract 2: the TTL is a liveness feature; the next fence is greater",
        ],
        preset: "contract-2-ttl",
        question: Some(Question::HolderAt { at_ms: 35 }),
        challenge: None,
    },
    Lesson {
        id: "pause-loses-update",
        title: "The pause and the lost update",
        explain: "A pause (GC, SIGSTOP, a page fault, a delayed packet) outlasts the lease. B \
                  takes the lock and writes; A wakes still sure it holds the lock and writes \
                  too. A storage that only trusts whoever writes takes both.",
        covers: &[
            "Kleppmann's diagram: A gets 33, pauses, the lease expires, B gets 34 and writes, A writes",
            "contract 3: without fencing both debits land",
            "efficiency vs correctness: two writers on an account is a correctness problem",
        ],
        preset: "gc-pause-unfenced",
        question: Some(Question::FinalBalance),
        challenge: Some(Challenge {
            text: "Make this run safe without touching the lock: change only the storage.",
            goal: Goal::SafeWithWork,
            keep: Keep::Lock,
        }),
    },
    Lesson {
        id: "the-fence",
        title: "The storage says no: the fencing token",
        explain: "The lock service hands out a number that only goes up with each grant, and \
                  the storage remembers the highest it has accepted. A's 33 arrives after B's \
                  34 and is refused as stale: the resource, not the lock, is the safety \
                  boundary.",
        covers: &[
            "contract 4: fenced storage rejects the stale debit",
            "the resource has to be the one that says no",
            "UPDATE … WHERE last_fence < $token: the check in one atomic step",
        ],
        preset: "gc-pause-fenced",
        question: Some(Question::Debit {
            client: "A",
            nth: 0,
        }),
        challenge: Some(Challenge {
            text: "Lose B's update again, changing only the storage.",
            goal: Goal::Unsafe,
            keep: Keep::Lock,
        }),
    },
    Lesson {
        id: "equal-is-stale",
        title: "An equal token is stale",
        explain: "The rule is token > last, not ≥. One grant allows one write; a second write \
                  with the same token is refused. A true retry of one intent carries the same \
                  idempotency key instead (the next lesson).",
        covers: &["contract 5: equal token is stale, > not ≥"],
        preset: "contract-5-equal-is-stale",
        question: Some(Question::Debit {
            client: "A",
            nth: 1,
        }),
        challenge: None,
    },
    Lesson {
        id: "idempotency-key",
        title: "The idempotency key beside the fence",
        explain: "A fence orders lock generations; an idempotency key makes one intent run \
                  once. A retried debit carries the key it had the first time, and the storage \
                  answers the second copy with what the first did. You usually want both.",
        covers: &[
            "FAQ: is a fencing token the same as an idempotency key? No",
            "a retry of the same write is idempotent at the business layer, not by resending the fence",
        ],
        preset: "idempotent-retry",
        question: Some(Question::FinalBalance),
        challenge: None,
    },
    Lesson {
        id: "isheld-is-theater",
        title: "isHeld() before the write is theater",
        explain: "The check is true when it runs and says nothing about the moment the write \
                  lands: a pause can fall between the two. Only a check made by the storage, in \
                  the same step as the write, holds.",
        covers: &[
            "contract 6: the check-then-write race (TOCTOU)",
            "why checking the lease just before the write does not save you",
            "FAQ: the storage cannot skip the check on the client's promise",
        ],
        preset: "contract-6-check-then-write",
        question: Some(Question::Debit {
            client: "A",
            nth: 0,
        }),
        challenge: Some(Challenge {
            text: "Let A's checked write cost B's update: change only the storage.",
            goal: Goal::Unsafe,
            keep: Keep::Lock,
        }),
    },
    Lesson {
        id: "heartbeats",
        title: "Heartbeats narrow the window; they do not close it",
        explain: "A watchdog renews the lease while its process runs. A pause stops the \
                  watchdog with everything else, so the lease still runs out under a paused \
                  holder, and a write already in flight is not fenced by any renewal.",
        covers: &["follow-up: can't we just heartbeat and extend the TTL?"],
        preset: "watchdog-saves",
        question: Some(Question::Safe),
        challenge: Some(Challenge {
            text: "Keep the watchdog on and lose an update anyway: change the storage and the \
                   timeline, not the lock.",
            goal: Goal::Unsafe,
            keep: Keep::Lock,
        }),
    },
    Lesson {
        id: "bare-del",
        title: "Release with a token check, not a bare DEL",
        explain: "A DEL does not ask whose lease it deletes. A holder that wakes after its \
                  lease expired deletes the next holder's key, and a third client walks in \
                  while the second still believes it holds the lock. Compare-and-delete in one \
                  script deletes nothing that is not yours.",
        covers: &["unlock with a compare-and-delete so you do not DEL someone else's lease"],
        preset: "bare-del",
        question: Some(Question::HolderAt { at_ms: 50 }),
        challenge: None,
    },
    Lesson {
        id: "redlock",
        title: "Redlock's quorum, and what it does not solve",
        explain: "A majority of five instances keeps the lock service up through a crash. It \
                  still trusts each instance's clock to time the lease, and it still hands out \
                  no fence: a paused holder can write after a new holder has.",
        covers: &[
            "follow-up: what about Redlock's five nodes?",
            "Redlock still does not hand me a fence",
        ],
        preset: "redlock-clock-jump",
        question: Some(Question::Safe),
        challenge: None,
    },
    Lesson {
        id: "uuid-is-not-a-fence",
        title: "A random value cannot be a fence",
        explain: "A lock's random value tells holders apart but does not order them: the \
                  storage cannot tell which of two values is newer, only whether the value it \
                  holds has been replaced. That takes a compare-and-set on the resource, and a \
                  late write whose value has not been replaced there yet still lands.",
        covers: &["follow-up: a UUID as the token? UUIDs do not order"],
        preset: "redlock-cas",
        question: Some(Question::Debit {
            client: "A",
            nth: 1,
        }),
        challenge: None,
    },
    Lesson {
        id: "tiers",
        title: "Which tier are you in?",
        explain: "For a cache fill or a duplicate email, a lease on one Redis is enough: two \
                  holders now and then cost some extra work, not money. For a debit, the lease \
                  is not the safety boundary and the fence on the resource is. Know which one \
                  you are building and say so.",
        covers: &[
            "the efficiency tier: a best-effort lock is enough",
            "FAQ: does every lock need this? No",
            "know which tier you're in",
        ],
        preset: "efficiency-tier",
        question: Some(Question::Safe),
        challenge: None,
    },
    Lesson {
        id: "real-fences",
        title: "Fences that services already give: revision, czxid",
        explain: "ZooKeeper's czxid and etcd's revision rise with every grant, so the storage \
                  can use them as the fence; Redis's SET NX returns OK or nil and nothing to \
                  order by. (A database row with a generation column is the other road.)",
        covers: &[
            "ZooKeeper people already have this: zxid; etcd has revision",
            "for correctness I want ZooKeeper/etcd or a unique constraint plus a generation column",
        ],
        preset: "zk-pause-czxid",
        question: Some(Question::Debit {
            client: "A",
            nth: 0,
        }),
        challenge: None,
    },
    Lesson {
        id: "say-it-out-loud",
        title: "Say it out loud",
        explain: "Ask whether the lock is for efficiency or correctness. For efficiency, SET NX \
                  PX on one Redis is enough. For correctness, the lock service hands out a \
                  number that only goes up, every write carries it, and the resource refuses \
                  any number not above the highest it has accepted, in the same step as the \
                  write. A check of the lease in the client is not that check.",
        covers: &[
            "what you say out loud in the system-design round",
            "if they say \"we use Redlock\"",
        ],
        preset: "gc-pause-fenced",
        question: None,
        challenge: None,
    },
];
