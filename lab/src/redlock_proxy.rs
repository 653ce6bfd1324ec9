//! The network between one Redlock client and one instance, as the lab runs it: a TCP proxy in
//! the conductor's process (so a stopped client does not stop its packets) that delays every
//! chunk by the instance's one-way latency, both ways, and drops what the client sends while
//! the scenario says the two cannot talk: a partition between them, or the instance down (its
//! `redis-server` is killed for real meanwhile; the proxy answers nothing, as a crashed host
//! does, so the client waits out its timeout as the algorithm's description has it). A chunk
//! is dropped if the cut holds when it leaves or when it would arrive; a reply, once the server
//! has written it, always arrives. The proxy dials the server again after a restart.
//!
//! Every chunk the client sends is logged with when it was due at the server and when it got
//! there (or that it was dropped), so the lab can tell a run whose network was late.

use crate::clock::{mono_us, sleep_until_us};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// One chunk a client sent, as the proxy handled it (µs since the run's start).
#[derive(Clone, Debug)]
pub struct Delivery {
    pub client: usize,
    pub instance: usize,
    /// When it left the client (read by the proxy).
    pub sent_us: u64,
    /// When it should reach the server: sent + latency.
    pub due_us: u64,
    /// When it reached the server; `None` when dropped.
    pub at_us: Option<u64>,
    /// Dropped because the scenario cut the two off (partition or instance down).
    pub cut: bool,
    /// A reply on its way back to the client (sent: when the server wrote it).
    pub reply: bool,
}

/// What one link shares with the conductor.
#[derive(Clone)]
pub struct Link {
    pub client: usize,
    pub instance: usize,
    /// The instance's `redis-server` now: a restart that loses the keys may be another
    /// process on another port.
    pub server_port: Arc<AtomicU16>,
    /// One-way latency, real µs.
    pub latency_us: u64,
    /// When the two cannot talk, real µs since the start, half-open.
    pub cut_us: Vec<(u64, u64)>,
    /// The run's start on the monotonic clock (0 until it starts).
    pub start: Arc<AtomicU64>,
    /// Bumped by the conductor at each kill of this instance's server: a connection to the
    /// old process is dialled again.
    pub epoch: Arc<AtomicU64>,
    pub log: Arc<Mutex<Vec<Delivery>>>,
}

impl Link {
    fn cut_at(&self, at_us: u64) -> bool {
        let start = self.start.load(Ordering::SeqCst);
        if start == 0 || at_us < start {
            return false;
        }
        let rel = at_us - start;
        self.cut_us.iter().any(|&(a, b)| a <= rel && rel < b)
    }

    fn rel(&self, at_us: u64) -> u64 {
        at_us.saturating_sub(self.start.load(Ordering::SeqCst))
    }
}

/// A running proxy: the port its client connects to. Dropping it stops it taking connections
/// (those it has end with their client).
pub struct Proxy {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Starts the proxy for `link`.
pub fn start(link: Link) -> std::io::Result<Proxy> {
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let port = listener.local_addr()?.port();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        // The lab's priority, once: every connection's threads, spawned from this one, inherit
        // it (a `renice` per connection would hold up its first packet).
        crate::servers::prioritise_this_thread();
        for conn in listener.incoming() {
            if stopped.load(Ordering::SeqCst) {
                return;
            }
            let Ok(client) = conn else { return };
            let link = link.clone();
            std::thread::spawn(move || serve(link, client));
        }
    });
    Ok(Proxy { port, stop })
}

type Chunk = (u64, Vec<u8>);

/// One client connection: a reader for each direction, and a deliverer for each.
fn serve(link: Link, client: TcpStream) {
    let _ = client.set_nodelay(true);
    let (Ok(to_client), Ok(from_client)) = (client.try_clone(), client.try_clone()) else {
        return;
    };
    let (up_tx, up_rx) = channel::<Chunk>();
    let (down_tx, down_rx) = channel::<Chunk>();
    let back = link.clone();
    std::thread::spawn(move || deliver_down(to_client, down_rx, &back));
    std::thread::spawn(move || read_into(from_client, up_tx));
    deliver_up(&link, up_rx, down_tx);
    let _ = client.shutdown(Shutdown::Both);
}

/// Reads chunks as they come, stamped with when they came.
fn read_into(mut from: TcpStream, tx: Sender<Chunk>) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if tx.send((mono_us(), buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        }
    }
}

/// Replies reach the client one latency after the server wrote them.
fn deliver_down(mut to: TcpStream, rx: Receiver<Chunk>, link: &Link) {
    for (at, bytes) in rx {
        let due = at + link.latency_us;
        sleep_until_us(due);
        let ok = to.write_all(&bytes).is_ok();
        let d = Delivery {
            client: link.client,
            instance: link.instance,
            sent_us: link.rel(at),
            due_us: link.rel(due),
            at_us: ok.then(|| link.rel(mono_us())),
            cut: false,
            reply: true,
        };
        log(link, at, d);
        if !ok {
            return;
        }
    }
}

/// Keeps what passed during the run (the clients' warm-up before it is not the run's).
fn log(link: &Link, sent: u64, d: Delivery) {
    let started = link.start.load(Ordering::SeqCst);
    if started != 0 && sent >= started {
        if let Ok(mut log) = link.log.lock() {
            log.push(d);
        }
    }
}

/// Requests reach the server one latency after they left, unless cut off.
fn deliver_up(link: &Link, rx: Receiver<Chunk>, down: Sender<Chunk>) {
    let mut server: Option<(TcpStream, u64)> = None;
    for (sent, bytes) in rx {
        let due = sent + link.latency_us;
        let mut d = Delivery {
            client: link.client,
            instance: link.instance,
            sent_us: link.rel(sent),
            due_us: link.rel(due),
            at_us: None,
            cut: false,
            reply: false,
        };
        if link.cut_at(sent) || link.cut_at(due) {
            d.cut = true;
        } else {
            sleep_until_us(due);
            let epoch = link.epoch.load(Ordering::SeqCst);
            if server.as_ref().is_some_and(|(_, e)| *e != epoch) {
                server = None;
            }
            for _ in 0..2 {
                if server.is_none() {
                    server =
                        dial(link.server_port.load(Ordering::SeqCst), &down).map(|s| (s, epoch));
                }
                match server.as_mut().map(|(s, _)| s.write_all(&bytes)) {
                    Some(Ok(())) => {
                        d.at_us = Some(link.rel(mono_us()));
                        break;
                    }
                    _ => server = None,
                }
            }
        }
        log(link, sent, d);
    }
    if let Some((s, _)) = server {
        let _ = s.shutdown(Shutdown::Write);
    }
}

/// A connection to the server, its replies read into `down`.
fn dial(port: u16, down: &Sender<Chunk>) -> Option<TcpStream> {
    let s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    let _ = s.set_nodelay(true);
    let reader = s.try_clone().ok()?;
    let tx = down.clone();
    std::thread::spawn(move || read_into(reader, tx));
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo() -> u16 {
        let l = TcpListener::bind(("127.0.0.1", 0)).expect("bind");
        let port = l.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            for s in l.incoming() {
                let Ok(mut s) = s else { return };
                std::thread::spawn(move || {
                    let mut b = [0u8; 64];
                    while let Ok(n) = s.read(&mut b) {
                        if n == 0 || s.write_all(&b[..n]).is_err() {
                            break;
                        }
                    }
                });
            }
        });
        port
    }

    /// A round trip takes two latencies; inside a cut window nothing comes back and the
    /// chunk is logged as cut; after it, traffic flows again on the same connection.
    #[test]
    fn latency_both_ways_and_a_cut_drops_what_leaves_inside_it() {
        let start = Arc::new(AtomicU64::new(0));
        let log = Arc::new(Mutex::new(Vec::new()));
        let link = Link {
            client: 0,
            instance: 0,
            server_port: Arc::new(AtomicU16::new(echo())),
            latency_us: 30_000,
            cut_us: vec![(100_000, 300_000)],
            start: start.clone(),
            epoch: Arc::new(AtomicU64::new(0)),
            log: log.clone(),
        };
        let proxy = start_proxy(link);
        let mut c = TcpStream::connect(("127.0.0.1", proxy.port)).expect("connect");
        c.set_read_timeout(Some(std::time::Duration::from_millis(150)))
            .expect("timeout");
        let t0 = mono_us();
        start.store(t0, Ordering::SeqCst);
        let mut b = [0u8; 1];
        c.write_all(b"a").expect("write");
        c.read_exact(&mut b).expect("echo");
        let rtt = mono_us() - t0;
        assert!((60_000..100_000).contains(&rtt), "round trip {rtt} µs");
        sleep_until_us(t0 + 120_000);
        c.write_all(b"b").expect("write");
        assert!(c.read_exact(&mut b).is_err(), "cut off: no answer");
        sleep_until_us(t0 + 320_000);
        c.write_all(b"c").expect("write");
        c.read_exact(&mut b).expect("echo after the cut");
        assert_eq!(&b, b"c");
        // The proxy logs a reply just after writing it.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let cut: Vec<(bool, bool)> = log
            .lock()
            .expect("log")
            .iter()
            .map(|d| (d.reply, d.cut))
            .collect();
        // Each chunk that got through has its echo logged after it.
        assert_eq!(
            cut,
            vec![
                (false, false),
                (true, false),
                (false, true),
                (false, false),
                (true, false)
            ]
        );
    }

    fn start_proxy(link: Link) -> Proxy {
        start(link).expect("proxy")
    }
}
