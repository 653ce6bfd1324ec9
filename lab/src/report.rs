//! What the lab writes: `docs/conformance.md` (the server versions, the scale, one row per
//! preset with its outcome and why, the date) and `src/sim/conformance.rs`, the generated table
//! the page reads its "Reproduced against …" marks from. Both come from one run's results, so
//! no mark on the page is written by hand.

use crate::check::{Outcome, Result};

/// The facts of one lab run.
pub struct Run {
    pub redis: String,
    pub postgres: String,
    pub etcd: String,
    pub zookeeper: String,
    pub date: String,
    pub scale: u64,
    pub tolerance_ms: f64,
    pub tries: u32,
    /// The run's time budget in seconds.
    pub budget_s: u64,
    pub results: Vec<Result>,
}

fn detail(r: &Result) -> String {
    let why = match &r.outcome {
        Outcome::Match => r.compared.clone(),
        Outcome::Mismatch(d) => d.clone(),
        Outcome::NotReproducible(w) => w.clone(),
        Outcome::Late(w) => format!("every try missed the timing: {w}"),
        Outcome::Failed(w) => w.clone(),
    };
    if r.note.is_empty() {
        why
    } else {
        format!("{why}; {}", r.note)
    }
}

/// How the lab runs the two services on PostgreSQL: the advisory lock and the database lease.
const POSTGRES_SERVICES: &str =
    "PostgreSQL advisory-lock presets run with **independent clients** against the same \
         PostgreSQL: each client is its own `fencing-lab client --advisory` process on the \
         `postgres` crate, written from PostgreSQL's documentation. It holds the lock on a \
         connection of its own (`pg_advisory_lock(k)`, or `BEGIN; pg_advisory_xact_lock(k)` at \
         transaction level, blocking until granted), with the scenario's \
         `idle_session_timeout` and `idle_in_transaction_session_timeout` set on it, scaled, \
         so the server itself ends the session; the client learns that only when its next \
         statement on it fails, and opens a new connection for its next lock. Its debit goes \
         to the account on a connection of its own, or, with `storage.inTransaction`, is an \
         `UPDATE` on the lock's connection (with its `COMMIT` at transaction level). A pause \
         is `SIGSTOP`/`SIGCONT` (the stopped process's kernel still answers the server, as the \
         model says), a crash `SIGKILL` (the kernel closes the socket). The lab runs no \
         standby: a failover is stood in for by terminating every lock session \
         (`pg_terminate_backend`) at the model's instant, the row's note says so. Compared: \
         each lock call's answer (granted, or failed with its session), each unlock or \
         `COMMIT` (released, nothing held, session gone), each debit sent or not and its \
         verdict (nothing commits on a dead session), at real times within the tolerance (a \
         server timer may fire up to 1 simulated ms late), then the final balance.\n\n\
         Database-lease presets run with **independent clients** against the same \
         PostgreSQL: each client is its own `fencing-lab client --lease` process on the \
         `postgres` crate, sending the statements the Commands view prints, built by the same \
         functions (`sim::commands::lease`), with the TTL scaled to the run (`interval '… \
         microseconds'`) and a waiter's read values in place of `psql`'s variables; the \
         tables are the Commands view's. With the waiter's clock judging expiry, a client whose \
         acquire returns no row reads the row, counts a TTL on its own wall clock and then \
         tries the compare-and-set; a client whose clock the scenario moves runs under the \
         lab's clock shim, driven as the model's clock for it reads. A pause is \
         `SIGSTOP`/`SIGCONT`, a crash `SIGKILL`, a delayed debit waits in the lab's proxy. The \
         lab runs no standby: a trigger keeps, in a table of the lab's, the row as it was before \
         its last takeover, and a failover puts that row back at the model's instant (the \
         account's rows are left as they are, no connection is cut); the row's note says so. \
         The database's own clock is not moved: the lab runs one PostgreSQL for every scenario \
         and has not measured PostgreSQL under its clock shim, so a scenario that moves it is \
         not reproducible, with the reason. Compared: each statement's answer (the acquire's \
         generation or no row, a waiter's read and wait, `UPDATE n` for a renewal or a \
         release, each debit sent with its generation or held back and PostgreSQL's answer to \
         it: the tag or the unique constraint's error), at real times within the tolerance, \
         then the account's balance and generation. A statement at the very millisecond a \
         lease runs out by the database's clock, a waiter's TTL ending as another client \
         changes the row, or a failover as a statement runs is too close to call.\n\n";

/// The Markdown table of a run.
pub fn markdown(run: &Run) -> String {
    let mut out = String::from("# Conformance: the presets against real servers\n\n");
    out.push_str(&format!(
        "Generated by the lab (`bash scripts/lab.sh --write`) on {}. Do not edit by hand.\n\n",
        run.date
    ));
    out.push_str(&format!(
        "- Redis: `redis-server` {} (Debian), one per lock instance, `--save '' --appendonly no` \
         (an instance whose crash keeps its keys runs with `--appendonly yes --appendfsync always`)\n\
         - PostgreSQL: {} (Debian)\n\
         - etcd: {} (Debian's `etcd-server`), three members on loopback\n\
         - ZooKeeper: {} (Debian's `zookeeper`, OpenJDK), three members on loopback\n\
         - Scale: {} real ms per simulated ms (TTLs on the wire are multiplied by it); a run in \
         which a command finished more than {:.1} ms late (0.4 simulated ms) is rerun, at most \
         {} times, with the scale doubled at each retry; no retry starts that could not end \
         within the run's budget ({} s). A run that stays late is reported as late, never as \
         a mismatch, and never as a match: a preset committed as `match` that comes back late \
         fails the lab\n\n",
        run.redis,
        run.postgres,
        run.etcd,
        run.zookeeper,
        run.scale,
        run.tolerance_ms,
        run.tries,
        run.budget_s
    ));
    out.push_str(&format!(
        "Single-lock presets run with **independent clients** (`{}`): each client is its own OS \
         process (`fencing-lab client`), written from the algorithms' descriptions on the \
         `redis` and `postgres` crates and sharing only the scripts and SQL with the model; it \
         keeps its own agenda by the machine's clock. A pause is `SIGSTOP`/`SIGCONT` of that \
         process, a crash `SIGKILL`, a debit's network delay the lab's delaying proxy holding \
         the write's first packet. The comparison is of histories: each client's grants and \
         denials with their fences, renewals (its own and its watchdog's), releases, \
         `isHeld()` answers, each debit's token and verdict, at real times within 0.4 \
         simulated ms of the model's, then the final balance and last fence read back. Two \
         events closer than that tolerance (two clients' requests to one server, a request \
         and the lease running out, a request and a signal to its process) are rerun at a \
         larger scale; events the model puts in the same millisecond are too close to call at \
         any scale, and a scenario whose order cannot be told apart is reported \
         \"too close to call\" (not reproducible), never a match.\n\n\
         etcd presets run with **independent clients** too, on a three-member cluster of \
         Debian's etcd {} that the lab starts on loopback once per run (a preset whose \
         members fail gets a cluster with its own election timeout): each client is its own \
         `fencing-lab client --etcd` process, written from etcd's documented JSON gateway on \
         the `ureq` crate; it grants a lease with the TTL, keeps it alive every TTL/3 from a \
         thread of its own (so a `SIGSTOP` stalls it), takes etcd's lock (`/v3/lock/lock`, \
         FIFO by create revision), reads its key's create revision as the fence, and debits \
         through PostgreSQL with the storage's fence rule or, for the guard preset, with an \
         etcd transaction guarded by `CREATE(key) == myRev`. A client's pause is \
         `SIGSTOP`/`SIGCONT`, its crash `SIGKILL`; a leader crash is `SIGKILL` of the member \
         leading at that instant, restarted on its data when the model brings it back. \
         Compared: each client's lock grants with their create revisions, lock answers for a \
         key that is gone, keepalives told \"lease not found\", unlocks, each debit's \
         revision and verdict, the final balance and last fence. The cluster serves every \
         preset, so its revisions are compared relative to its revision just before the run \
         (the model's `firstFence` stands for the run's first write). etcd TTLs are whole \
         seconds and its leader looks for expired leases every 500 ms, so each etcd preset \
         runs at its own scale: the smallest at which the TTL is whole seconds and that sweep \
         (plus, after a member crash, one election timeout) cannot reorder what the model \
         orders; a fact may come that much later than the model's, never earlier than the \
         tolerance. What etcd 3.5 answers differently from 3.4 is not compared: no 3.5 server \
         is installed.\n\n\
         {}\
         ZooKeeper presets run with **independent clients** on a three-member ensemble of \
         ZooKeeper {} that the lab starts on loopback once per run, its `tickTime` the \
         scenario's tick scaled (at least 10 ms, with sessions of at least 100 ms). Each client is its own `fencing-lab client --zookeeper` process doing the \
         documented lock recipe on the `zookeeper-client` crate (an `EPHEMERAL_SEQUENTIAL` node \
         under the lock's parent, a watch on the next lower node, the parent made again as a \
         container when missing), with the node's czxid or its sequence as the fence, and \
         debits through PostgreSQL with the storage's fence rule. Each run has a parent of its \
         own, created before the run; the model's `parent_removed` is the conductor's \
         `delete` of it at that instant, only if it has no children. A client's pause is \
         `SIGSTOP`/`SIGCONT`, its crash `SIGKILL`; a partition is a tap in front of every \
         member for that client that holds its traffic both ways, the connections left open, \
         and delivers it when the partition heals. \
         An event runs on what the client knew when it fell due (one due during a pause runs \
         on waking, before anything the library tells it then). Compared: each lock call's \
         answer (granted with its node's sequence and czxid, waits behind a lower node), each \
         unlock, each debit's fence and verdict (held back while SUSPENDED, not sent holding \
         no lock), then the connection states the library reported by kind and order, the \
         final balance and last fence; zxids relative to the leader's zxid just before the \
         run (the model's `firstFence` stands for the run's first transaction). Not compared: \
         when a state was reported and when a waiter was granted. The library reports \
         SUSPENDED 9/20 of the session timeout after its last answer (the model's Curator \
         2/3), declares LOST by itself 7/5 of it after that while cut off (the model when the \
         partition heals) and pings after 3/20 of silence (the model every third), and the \
         leader expires sessions on ticks of its own clock: a run in which one of these could \
         reorder what the model orders is not reproducible, with the reason.\n\n\
         Redlock presets run with **independent clients** too (`{}`): one `redis-server` \
         per instance, and each client its own `fencing-lab client --redlock` process, written \
         from the algorithm's description (the Redis documentation's Redlock steps and \
         antirez's `redlock-rb`), packing commands and parsing replies with the `redis` crate. \
         It notes the time, asks each instance in turn (or all at once, as the scenario says) \
         with `SET NX PX` (the fenced variant: the acquire script), waits for each at most the \
         per-instance timeout, counts a majority, measures the elapsed time by its own clock, \
         takes validity = TTL − elapsed − (⌊TTL × factor⌋ + 2 ms), and after a failed attempt \
         unlocks every instance without waiting for the replies and tries again after a delay \
         drawn from the scenario's seed (the delay is input; the decision is the client's). \
         An extension (a renewal or a watchdog's turn) is the same round with the extend \
         script; debits go through PostgreSQL as the single-lock client's do, each at its own \
         time, also while a round is under way. Between each client and each instance runs a \
         proxy of the lab's own that delays every packet by the instance's latency, both ways. \
         A partition is a real cut in that proxy: what the client sends while the two are cut \
         off is dropped (no network namespace is used). An instance crash is `SIGKILL` of its \
         `redis-server`. Where the crash keeps its keys (an append-only file, `appendfsync \
         always`) the restart is a new process on the same port and files, started up to 300 \
         real ms before the model's instant so that it answers then; where it loses them, an \
         empty `redis-server` started before the run (the scripts loaded, no fence counter), \
         to which the proxies turn at the crash. While an instance is down its proxies answer \
         nothing, as a crashed host, so clients wait out their timeout. A \
         client's pause is `SIGSTOP`/`SIGCONT`, its crash `SIGKILL`. Compared: each client's \
         rounds with every instance's answer as the client saw it (granted; refused; cut off, \
         the request dropped for a partition or the instance down, which the lab reads from \
         its proxy as the client cannot tell; or timed out, no reply in when it looked), \
         the verdict and the validity it computed (within the tolerance), each unlock after a \
         failed attempt and each release (their replies are not compared: no client waits for \
         them), each debit's token and verdict, then the final balance and last fence; every \
         packet must reach its instance on time. Not reproducible: two clients' requests at \
         one instance in the same millisecond, a reply that reaches a client at the instant \
         its timeout or its waking makes it look, a round whose elapsed time is its verdict's \
         boundary, and a lock call (or a debit held back by a pause) that the model runs in the \
         middle of that client's own round, where a real client's lock call returns first. An \
         instance whose clock the scenario moves (an offset, drift, a jump or a slew) runs its \
         `redis-server` with the lab's clock shim (`lab/clockshim`, loaded with `LD_PRELOAD`: \
         it reads the time by the `clock_gettime` system call and adds an offset to \
         `CLOCK_REALTIME`, `gettimeofday` and `time`, avoiding the recursion that hangs \
         libfaketime in redis-server 7), and the lab moves that server's offset as the model's \
         clock for it reads, half a simulated millisecond before each millisecond; Redis stamps \
         and checks expiries by that wall clock. An instance the model calls monotonic is not \
         run: the shim measured that Redis 7.0 expires keys by its wall clock both ways.\n\n",
        crate::check::INDEPENDENT,
        run.etcd,
        POSTGRES_SERVICES,
        run.zookeeper,
        crate::check::INDEPENDENT
    ));
    out.push_str("| Preset | Outcome | Clients | Compared, or why not |\n|---|---|---|---|\n");
    for r in &run.results {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            r.id,
            r.outcome.word(),
            r.clients,
            detail(r).replace('|', "\\|")
        ));
    }
    out
}

fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// The generated Rust table the page reads.
pub fn rust(run: &Run) -> String {
    let mut out = String::from(
        "//! Which presets the lab reproduced against real Redis, etcd, ZooKeeper and PostgreSQL servers\n\
         //! (advisory locks too), generated by\n\
         //! the lab from its last run (`bash scripts/lab.sh --write`); do not edit by hand. The page\n\
         //! marks a preset \"Reproduced\" only when its row here says `match`, and\n\
         //! `docs/conformance.md` is the same table in words.\n\n",
    );
    out.push_str(&format!(
        "pub const REDIS_VERSION: &str = {};\npub const POSTGRES_VERSION: &str = {};\npub const ETCD_VERSION: &str = {};\npub const ZOOKEEPER_VERSION: &str = {};\npub const CHECKED_ON: &str = {};\n\n",
        rust_str(&run.redis),
        rust_str(&run.postgres),
        rust_str(&run.etcd),
        rust_str(&run.zookeeper),
        rust_str(&run.date)
    ));
    out.push_str(
        "/// One preset's outcome: `match`, `mismatch`, `not reproducible` or `late`.\npub struct Row {\n    pub id: &'static str,\n    pub outcome: &'static str,\n    pub detail: &'static str,\n}\n\n",
    );
    out.push_str("pub const ROWS: &[Row] = &[\n");
    for r in &run.results {
        out.push_str(&format!(
            "    Row {{\n        id: {},\n        outcome: {},\n        detail: {},\n    }},\n",
            rust_str(&r.id),
            rust_str(r.outcome.word()),
            rust_str(&detail(r))
        ));
    }
    out.push_str("];\n\n");
    out.push_str(
        "/// The row of preset `id`, when it matched the real servers.\npub fn reproduced(id: &str) -> Option<&'static Row> {\n    ROWS.iter().find(|r| r.id == id && r.outcome == \"match\")\n}\n",
    );
    out
}
