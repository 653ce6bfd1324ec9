//! Who leads an etcd cluster when, worked out once from the members' crashes and partitions
//! (they are fixed by the scenario, so the whole timeline is known before the run). A leader
//! that goes down or is cut off, or that can no longer reach a quorum of members, stops
//! leading at once; the others elect a new leader an election timeout later, as soon as a
//! quorum of members is up. Raft replicates every committed write to a quorum, so an election
//! loses nothing: only time.

use super::intervals::Intervals;
use crate::sim::scenario::{Etcd, MemberEvent};
use crate::sim::sort;
use crate::sim::trace::{LeaderSpan, MemberOutage, MemberOutageKind};

pub struct Cluster {
    pub leaders: Vec<LeaderSpan>,
    pub outages: Vec<MemberOutage>,
}

impl Cluster {
    /// The leader timeline up to `limit` (true time).
    pub fn new(e: &Etcd, limit: u64) -> Cluster {
        let mut outages = Vec::new();
        for (member, m) in e.members.iter().enumerate() {
            for ev in &m.events {
                outages.push(MemberOutage {
                    member,
                    start_ms: ev.at_ms(),
                    end_ms: ev.end_ms(),
                    kind: match ev {
                        MemberEvent::Crash { .. } => MemberOutageKind::Crash,
                        MemberEvent::Partition { .. } => MemberOutageKind::Partition,
                    },
                });
            }
        }
        sort::sort_by_key(&mut outages, |o| (o.start_ms, o.member));
        let down: Vec<Intervals> = (0..e.members.len())
            .map(|m| {
                Intervals::merged(
                    outages
                        .iter()
                        .filter(|o| o.member == m)
                        .map(|o| (o.start_ms, o.end_ms)),
                )
            })
            .collect();
        let mut bounds: Vec<u64> = outages
            .iter()
            .flat_map(|o| [o.start_ms, o.end_ms])
            .collect();
        sort::sort(&mut bounds);
        bounds.dedup();
        let up = |m: usize, t: u64| !down[m].contains(t);
        let quorate = |t: u64| (0..down.len()).filter(|&m| up(m, t)).count() >= e.quorum();
        // The first instant from `from` on (`from` itself or an outage's start or end) at which
        // `ok` holds.
        let first = |from: u64, ok: &dyn Fn(u64) -> bool| {
            std::iter::once(from)
                .chain(bounds.iter().copied().filter(|&b| b > from))
                .find(|&t| ok(t))
        };
        let mut leaders = Vec::new();
        let mut from = first(0, &quorate);
        let mut previous: Option<usize> = None;
        // Each turn ends at a later bound, so the loop ends within the bounds' count.
        for _ in 0..=bounds.len() + 1 {
            let Some(start) = from.filter(|&t| t < limit) else {
                break;
            };
            let candidates = (0..down.len()).filter(|&m| up(m, start));
            let Some(member) = candidates
                .clone()
                .find(|&m| Some(m) != previous)
                .or_else(|| candidates.clone().next())
            else {
                break;
            };
            let lost = first(start, &|t| !up(member, t) || !quorate(t));
            let end = lost.unwrap_or(limit).min(limit);
            leaders.push(LeaderSpan {
                member,
                start_ms: start,
                end_ms: end,
            });
            previous = Some(member);
            from = lost.and_then(|t| first(t.saturating_add(e.election_timeout_ms), &quorate));
        }
        Cluster { leaders, outages }
    }

    /// The leader at true time `t`, if the cluster has one.
    pub fn leader_at(&self, t: u64) -> Option<usize> {
        self.leaders
            .iter()
            .find(|l| l.start_ms <= t && t < l.end_ms)
            .map(|l| l.member)
    }

    /// When the cluster next has a leader, from `t` on.
    pub fn next_leader(&self, t: u64) -> Option<u64> {
        self.leaders
            .iter()
            .find(|l| l.end_ms > t)
            .map(|l| l.start_ms.max(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::Etcd;

    fn spans(e: &Etcd) -> Vec<(usize, u64, u64)> {
        Cluster::new(e, 1000)
            .leaders
            .iter()
            .map(|l| (l.member, l.start_ms, l.end_ms))
            .collect()
    }

    #[test]
    fn a_crashed_leader_is_replaced_one_election_timeout_later() {
        let mut e = Etcd::cluster(3);
        e.members[0].events.push(MemberEvent::Crash {
            at_ms: 20,
            down_ms: 100,
        });
        assert_eq!(spans(&e), [(0, 0, 20), (1, 30, 1000)]);
    }

    #[test]
    fn a_crashed_follower_changes_nothing_but_two_of_three_stop_the_cluster() {
        let mut e = Etcd::cluster(3);
        e.members[2].events.push(MemberEvent::Crash {
            at_ms: 20,
            down_ms: 100,
        });
        assert_eq!(spans(&e), [(0, 0, 1000)]);
        e.members[1].events.push(MemberEvent::Partition {
            at_ms: 50,
            duration_ms: 10,
        });
        // No quorum from 50 to 60: the leader steps down at 50; an election timeout later
        // (60) two members are up again and elect one of them.
        assert_eq!(spans(&e), [(0, 0, 50), (1, 60, 1000)]);
    }

    #[test]
    fn one_member_is_its_own_quorum() {
        let mut e = Etcd::cluster(1);
        e.members[0].events.push(MemberEvent::Crash {
            at_ms: 5,
            down_ms: 3,
        });
        // Back at 8 ms as a follower; it elects itself an election timeout after the loss.
        assert_eq!(spans(&e), [(0, 0, 5), (0, 15, 1000)]);
    }
}
