//! Scenarios side by side (`fencing-lab --jobs N`): N worker threads, each with a lab of its own
//! (its own PostgreSQL, etcd clusters and ZooKeeper ensembles, which live in the thread that
//! started them), take scenarios from one queue. A scenario mostly waits in real time, so the
//! machine's cores are nearly idle while one runs.
//!
//! A worker asks for a scenario of the lock service it ran last, so that the clusters it
//! started serve again rather than every worker starting its own three etcd members and three
//! ZooKeeper JVMs; failing that, one of a service no other worker is on. The queue hands out
//! the longest first (an estimate from the scenario's length and service), so no long one
//! starts last. Each scenario's lines are held back while it runs (`crate::held`) and handed
//! to the caller with its result, to be printed as one block.

use fencing_playground::sim::scenario::LockService;
use fencing_playground::sim::Scenario;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

/// The lock service a scenario runs on: what a worker's lab keeps running between scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Service {
    ZooKeeper,
    Etcd,
    Advisory,
    /// A database lease row on the lab's PostgreSQL.
    Lease,
    Redlock,
    /// A single Redis lock.
    Redis,
}

impl Service {
    /// Every service, in the order `random --service` lists them.
    pub const ALL: [Service; 6] = [
        Service::Redis,
        Service::Redlock,
        Service::Etcd,
        Service::Advisory,
        Service::ZooKeeper,
        Service::Lease,
    ];

    /// The service's name on the command line (`random --service NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Service::Redis => "redis",
            Service::Redlock => "redlock",
            Service::Etcd => "etcd",
            Service::Advisory => "advisory",
            Service::ZooKeeper => "zookeeper",
            Service::Lease => "lease",
        }
    }

    /// The service named `name`, if any.
    pub fn named(name: &str) -> Option<Service> {
        Service::ALL.into_iter().find(|x| x.name() == name)
    }
}

pub fn service(s: &Scenario) -> Service {
    match &s.lock.service {
        LockService::Redis => Service::Redis,
        LockService::Redlock(_) => Service::Redlock,
        LockService::Etcd(_) => Service::Etcd,
        LockService::Advisory(_) => Service::Advisory,
        LockService::Zookeeper(_) => Service::ZooKeeper,
        LockService::Lease(_) => Service::Lease,
    }
}

/// A rough guess at how long a scenario takes, in real ms: its simulated length at the lab's
/// scale, more for the services that run at a larger scale of their own (etcd's whole-second
/// TTLs, ZooKeeper's 10 ms ticks) or start a cluster first. Only the order matters.
pub fn cost(s: &Scenario, scale: u64) -> u64 {
    let ms = s.horizon_ms().max(1) * scale;
    match service(s) {
        Service::Etcd => ms * 3 + 3000,
        Service::ZooKeeper => ms * 2 + 3000,
        Service::Advisory | Service::Redlock | Service::Redis | Service::Lease => ms,
    }
}

/// The scenarios not yet handed out, and the service each worker is on.
pub struct Queue {
    inner: Mutex<QueueState>,
    affinity: bool,
}

struct QueueState {
    /// Job index and service, in the order they are to be handed out.
    pending: Vec<(usize, Service)>,
    /// The service of each scenario being run.
    busy: Vec<Service>,
}

impl Queue {
    /// The jobs in the order given (`affinity` false: handed out in exactly that order, as one
    /// worker runs them).
    pub fn new(pending: Vec<(usize, Service)>, affinity: bool) -> Queue {
        Queue {
            inner: Mutex::new(QueueState {
                pending,
                busy: Vec::new(),
            }),
            affinity,
        }
    }

    /// The jobs with the costliest first (ties in the order given).
    pub fn longest_first(jobs: Vec<(usize, Service, u64)>, affinity: bool) -> Queue {
        let mut jobs = jobs;
        jobs.sort_by_key(|j| std::cmp::Reverse(j.2));
        Queue::new(jobs.into_iter().map(|(i, s, _)| (i, s)).collect(), affinity)
    }

    /// The next job for a worker whose last job ran on `prev` (None: its first): the first one
    /// left on `prev`, else the first on a service no other worker is on, else the first.
    pub fn next(&self, prev: Option<Service>) -> Option<(usize, Service)> {
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = prev.and_then(|p| q.busy.iter().position(|b| *b == p)) {
            q.busy.swap_remove(at);
        }
        if q.pending.is_empty() {
            return None;
        }
        let at = if self.affinity {
            let same = prev.and_then(|p| q.pending.iter().position(|j| j.1 == p));
            let free = || q.pending.iter().position(|j| !q.busy.contains(&j.1));
            same.or_else(free).unwrap_or(0)
        } else {
            0
        };
        let job = q.pending.remove(at);
        q.busy.push(job.1);
        Some(job)
    }
}

/// What `run` asks of the caller: how a worker starts its lab, runs one job on it and ends.
pub struct Work<'a, L, R, F> {
    pub start: &'a (dyn Fn() -> Result<L, String> + Sync),
    /// Called once, when every worker's lab has started, before any job is taken.
    pub ready: &'a (dyn Fn() + Sync),
    /// Job `i` on this worker's lab: its result, and whether no worker should take another job.
    pub run: &'a (dyn Fn(&L, usize) -> (R, bool) + Sync),
    /// What the worker hands back of its lab when the queue is done, in its own thread.
    pub finish: &'a (dyn Fn(L) -> F + Sync),
}

/// Runs the queue's jobs on `workers` threads, each with the lab `work.start` gives it. `done`
/// gets each job's index, result and held-back lines (none with one worker: its lines are
/// printed as they come) on the calling thread, as the jobs end. Returns each worker's
/// `work.finish`, or the first error a worker's start gave.
pub fn run<L, R: Send, F: Send>(
    workers: usize,
    queue: &Queue,
    work: Work<'_, L, R, F>,
    mut done: impl FnMut(usize, R, Vec<String>),
) -> Result<Vec<F>, String> {
    let hold = workers > 1;
    let stop = AtomicBool::new(false);
    let started = std::sync::Barrier::new(workers.max(1));
    let (tx, rx) = mpsc::channel::<(usize, R, Vec<String>)>();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.max(1))
            .map(|_| {
                let tx = tx.clone();
                let (stop, work, started) = (&stop, &work, &started);
                scope.spawn(move || -> Result<F, String> {
                    let lab = (work.start)().inspect_err(|_| stop.store(true, Ordering::SeqCst));
                    // Every worker's lab is up (or failed) before any job begins.
                    if started.wait().is_leader() {
                        (work.ready)();
                    }
                    let lab = lab?;
                    let mut prev = None;
                    while !stop.load(Ordering::SeqCst) {
                        let Some((i, service)) = queue.next(prev) else {
                            break;
                        };
                        prev = Some(service);
                        let ((r, halt), lines) = if hold {
                            crate::held(|| (work.run)(&lab, i))
                        } else {
                            ((work.run)(&lab, i), Vec::new())
                        };
                        if halt {
                            stop.store(true, Ordering::SeqCst);
                        }
                        if tx.send((i, r, lines)).is_err() {
                            break;
                        }
                    }
                    Ok((work.finish)(lab))
                })
            })
            .collect();
        drop(tx);
        for (i, r, lines) in rx {
            done(i, r, lines);
        }
        let mut out = Vec::new();
        for h in handles {
            match h.join() {
                Ok(r) => out.push(r?),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        Ok(out)
    })
}

/// Prints blocks of lines in job order as they come in any order: block `i` once every block
/// before it is printed (or known never to come: `flush`).
#[derive(Default)]
pub struct InOrder {
    next: usize,
    waiting: std::collections::BTreeMap<usize, Vec<String>>,
}

impl InOrder {
    /// Block `i` has come; returns what may be printed now, in order.
    pub fn add(&mut self, i: usize, lines: Vec<String>) -> Vec<String> {
        self.waiting.insert(i, lines);
        let mut out = Vec::new();
        while let Some(lines) = self.waiting.remove(&self.next) {
            out.extend(lines);
            self.next += 1;
        }
        out
    }

    /// Every block still waiting, in order (the ones before it will not come).
    pub fn flush(&mut self) -> Vec<String> {
        std::mem::take(&mut self.waiting)
            .into_values()
            .flatten()
            .collect()
    }
}

/// Prints lines together: no other thread's line comes between them.
pub fn print_block(lines: &[String]) {
    use std::io::Write;
    if lines.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use Service::*;

    #[test]
    fn a_scenario_s_service_is_its_lock_s() {
        let of = |id: &str| service(&preset(id).expect("preset"));
        assert_eq!(of("contract-4-fenced"), Redis);
        assert_eq!(of("redlock-happy"), Redlock);
        assert_eq!(of("etcd-pause-fenced"), Etcd);
        assert!(fencing_playground::sim::presets::presets()
            .iter()
            .any(|p| service(&p.scenario) == ZooKeeper));
    }

    #[test]
    fn one_worker_without_affinity_takes_the_jobs_in_order() {
        let q = Queue::new(
            vec![(0, Redis), (1, Etcd), (2, Redis), (3, ZooKeeper)],
            false,
        );
        let mut prev = None;
        let mut got = Vec::new();
        while let Some((i, s)) = q.next(prev) {
            got.push(i);
            prev = Some(s);
        }
        assert_eq!(got, [0, 1, 2, 3]);
    }

    #[test]
    fn a_worker_stays_on_its_service_and_a_new_one_takes_a_free_service() {
        let jobs = vec![
            (0, ZooKeeper),
            (1, ZooKeeper),
            (2, Etcd),
            (3, Redis),
            (4, ZooKeeper),
            (5, Etcd),
        ];
        let q = Queue::new(jobs, true);
        // The first worker takes the head; the second a service nobody is on.
        assert_eq!(q.next(None), Some((0, ZooKeeper)));
        assert_eq!(q.next(None), Some((2, Etcd)));
        assert_eq!(q.next(None), Some((3, Redis)));
        // Each goes on with its own service while any is left.
        assert_eq!(q.next(Some(ZooKeeper)), Some((1, ZooKeeper)));
        assert_eq!(q.next(Some(Etcd)), Some((5, Etcd)));
        // The Redis worker's service is done: the one left is ZooKeeper's, which another has.
        assert_eq!(q.next(Some(Redis)), Some((4, ZooKeeper)));
        assert_eq!(q.next(Some(ZooKeeper)), None);
        assert_eq!(q.next(Some(Etcd)), None);
    }

    #[test]
    fn the_longest_go_first_ties_in_order() {
        let q = Queue::longest_first(vec![(0, Redis, 5), (1, Redis, 9), (2, Redis, 5)], false);
        let order: Vec<usize> = std::iter::from_fn(|| q.next(None).map(|j| j.0)).collect();
        assert_eq!(order, [1, 0, 2]);
    }

    #[test]
    fn blocks_come_out_in_job_order() {
        let mut p = InOrder::default();
        let b = |s: &str| vec![s.to_string()];
        assert!(p.add(2, b("c")).is_empty());
        assert!(p.add(1, b("b")).is_empty());
        assert_eq!(p.add(0, b("a")), ["a", "b", "c"]);
        assert!(p.add(4, b("e")).is_empty());
        assert_eq!(p.flush(), ["e"]);
    }

    #[test]
    fn results_come_back_for_every_job_with_their_lines_held_together() {
        let jobs: Vec<(usize, Service, u64)> = (0..12)
            .map(|i| (i, [Redis, Etcd, ZooKeeper][i % 3], (i * 7 % 5) as u64))
            .collect();
        let q = Queue::longest_first(jobs, true);
        let mut results = vec![None; 12];
        let mut blocks = Vec::new();
        let labs = run(
            3,
            &q,
            Work {
                start: &|| Ok(std::thread::current().id()),
                ready: &|| {},
                run: &|lab, i| {
                    crate::say!("job {i} begins");
                    std::thread::sleep(std::time::Duration::from_millis(3));
                    crate::say!("job {i} ends");
                    ((i * 10, *lab), false)
                },
                finish: &|lab| lab,
            },
            |i, r, lines| {
                results[i] = Some(r.0);
                blocks.push(lines);
            },
        )
        .expect("the workers start");
        assert_eq!(labs.len(), 3);
        let want: Vec<Option<usize>> = (0..12).map(|i| Some(i * 10)).collect();
        assert_eq!(results, want);
        for b in &blocks {
            let i = b[0].split(' ').nth(1).expect("a job number");
            assert_eq!(b, &[format!("job {i} begins"), format!("job {i} ends")]);
        }
    }

    #[test]
    fn a_halting_job_stops_the_workers_and_a_failed_start_is_the_error() {
        let q = Queue::new((0..20).map(|i| (i, Redis)).collect(), false);
        let mut ran = Vec::new();
        run(
            1,
            &q,
            Work {
                start: &|| Ok(()),
                ready: &|| {},
                run: &|_, i| (i, i == 3),
                finish: &|_| (),
            },
            |i, _, _| ran.push(i),
        )
        .expect("the worker starts");
        assert_eq!(ran, [0, 1, 2, 3]);
        let q = Queue::new(vec![(0, Redis)], false);
        let err = run(
            2,
            &q,
            Work {
                start: &|| Err::<(), _>("no PostgreSQL".to_string()),
                ready: &|| {},
                run: &|_, i| (i, false),
                finish: &|_| (),
            },
            |_, _, _| {},
        );
        assert_eq!(err.err().as_deref(), Some("no PostgreSQL"));
    }
}
