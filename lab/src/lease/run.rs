//! One database-lease run with independent clients: every client its own `fencing-lab client
//! --lease` process (`client.rs`) against the lab's PostgreSQL, conducted as an advisory-lock
//! run is (`pg_run::conduct`): a pause is `SIGSTOP`/`SIGCONT`, a crash `SIGKILL`, a delayed
//! debit waits in the delaying proxy. A client whose clock the scenario moves runs under the
//! lab's clock shim (`LD_PRELOAD`, its wall clock driven as the model's clock for it reads), so
//! a waiter counts its TTL on the clock the scenario gives it.
//!
//! A failover is stood in for: the lab runs no standby. A trigger keeps, in a table of the
//! lab's own (`lab_standby`), the lease row as it was before its last takeover (each `UPDATE`
//! that changes the generation copies the old row there), which is what an asynchronous
//! standby that missed that takeover holds. At the model's instant the conductor puts that
//! row back in `leases` and forgets it, as a promotion would; the account's rows are left
//! alone (the model assumes them replicated) and no connection is cut (the model's clients
//! reconnect to the new primary at no cost). The run's `note` says so.

use crate::etcd_run::run_end_ms;
use crate::independent::{client_program, fail, Happened};
use crate::pg::Pg;
use crate::pg_run::{conduct, debit_ports, spawn, Run};
use crate::servers::{niced, Postgres, TempDir, PG_USER};
use crate::shim::ClockFile;
use fencing_playground::sim::clock::Clock;
use fencing_playground::sim::commands::lease as sql;
use fencing_playground::sim::{Scenario, Trace};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// What the lab says about a failover it stood in for.
pub const FAILOVER_NOTE: &str = "failover: the lease row as it was before its last takeover \
    (kept by a trigger in a table of the lab's) put back at the model's instant; the lab runs \
    no standby";

/// The lab's stand-in for the standby's copy of the lease row: a table and a trigger that
/// fills it with the row before each takeover. Not part of the Commands view's SQL.
pub const STANDBY_SQL: [&str; 3] = [
    "CREATE TABLE lab_standby (name text PRIMARY KEY, holder text, generation bigint NOT NULL, \
     expires_at timestamptz NOT NULL)",
    "CREATE FUNCTION lab_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
     INSERT INTO lab_standby VALUES (OLD.name, OLD.holder, OLD.generation, OLD.expires_at) \
     ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, generation = \
     EXCLUDED.generation, expires_at = EXCLUDED.expires_at; RETURN NEW; END $$",
    "CREATE TRIGGER lab_keep BEFORE UPDATE ON leases FOR EACH ROW \
     WHEN (OLD.generation IS DISTINCT FROM NEW.generation) EXECUTE FUNCTION lab_keep()",
];

/// The promotion: the standby's row in place of the primary's, then forgotten.
pub const PROMOTE_SQL: &str = "WITH s AS (DELETE FROM lab_standby RETURNING *) \
    UPDATE leases l SET holder = s.holder, generation = s.generation, expires_at = s.expires_at \
    FROM s WHERE l.name = s.name";

/// A fresh `run` database with the Commands view's tables and the lab's standby.
fn prepare(s: &Scenario, port: u16) -> std::io::Result<()> {
    let mut admin = Pg::connect(port, PG_USER, "postgres")?;
    admin.query("DROP DATABASE IF EXISTS run")?;
    admin.query("CREATE DATABASE run")?;
    let mut db = Pg::connect(port, PG_USER, "run")?;
    let setup = sql::setup_sql(&s.key, s.storage.balance, s.storage.lease_guard);
    let all = setup.iter().map(|(q, _)| q.as_str()).chain(STANDBY_SQL);
    for q in all {
        if let Some(e) = db.query(q)?.error {
            return Err(fail(format!("{q}: {e}")));
        }
    }
    Ok(())
}

/// Each client's clock as the model reads it, where the scenario moves it.
pub fn moved_client_clocks(s: &Scenario) -> Vec<Option<Clock>> {
    s.clients
        .iter()
        .map(|c| {
            let clock = Clock::new(&c.clock, Scenario::client_jumps(c));
            let moves = (0..=s.horizon_ms()).any(|t| clock.offset_at(t) != 0);
            moves.then_some(clock)
        })
        .collect()
}

/// Replays `s` once, `scale_us` real µs per simulated ms.
pub fn replay(s: &Scenario, t: &Trace, pg: &Postgres, scale_us: u64) -> std::io::Result<Happened> {
    let l = s
        .lock
        .lease()
        .ok_or_else(|| fail("not a database-lease scenario"))?;
    prepare(s, pg.port)?;
    let dir = TempDir::in_memory()?;
    let file = dir.0.join("scenario.json");
    std::fs::write(&file, s.to_json())?;
    let end_ms = run_end_ms(s, t);
    let start = Arc::new(AtomicU64::new(0));
    let exe = client_program()?;
    // The conductor's own session, opened before the run.
    let mut admin = Pg::connect(pg.port, PG_USER, "run")?;
    let mut clocks = Vec::new();
    let mut procs = Vec::new();
    for (k, (c, clock)) in s.clients.iter().zip(moved_client_clocks(s)).enumerate() {
        let ports = debit_ports(c, pg.port, &start, scale_us)?;
        let mut cmd = niced(&exe.to_string_lossy());
        cmd.args(["client", "--index", &k.to_string()])
            .args(["--lease", &pg.port.to_string()])
            .args(["--pg", &ports])
            .args(["--until-ms", &end_ms.to_string()])
            .args(["--scale-us", &scale_us.to_string()])
            .arg("--scenario")
            .arg(&file);
        if let Some(clock) = clock {
            let f = Arc::new(ClockFile::create(&dir.0, &format!("client-{k}"))?);
            cmd.envs(f.env()?);
            clocks.push((f, clock));
        }
        procs.push(spawn(cmd)?);
    }
    let failovers: Vec<u64> = l.events.iter().map(|e| e.at_ms()).collect();
    let mut promote = || -> std::io::Result<()> {
        match admin.query(PROMOTE_SQL)?.error {
            Some(e) => Err(fail(format!("the failover's stand-in: {e}"))),
            None => Ok(()),
        }
    };
    let run = Run {
        s,
        failovers: &failovers,
        start: &start,
        scale_us,
        end_ms,
        clocks,
    };
    let result = conduct(run, &mut procs, &mut promote);
    for p in &mut procs {
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    let (lines, signals) = result?;
    let mut db = Pg::connect(pg.port, PG_USER, "run")?;
    let answer = db.query(&sql::final_sql(&s.key))?;
    let row = answer.rows.first().ok_or_else(|| fail("no account row"))?;
    let number = |i: usize| -> std::io::Result<i64> {
        row.get(i)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| fail("the account row is not two numbers"))
    };
    Ok(Happened {
        lines,
        signals,
        balance: number(0)?,
        last_fence: number(1)?,
        scale_us,
    })
}
