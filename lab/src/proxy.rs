//! The lab's delaying TCP proxy: the network between one client and the storage for one
//! delayed write. It forwards both ways on loopback; the first bytes the client sends after
//! the run has started (the write's `BEGIN`) are held for the write's delay, and everything
//! behind them waits in order, as a packet stuck in the network holds back its stream. It runs
//! in the conductor's process, so a paused client does not pause its packet.

use crate::clock::{mono_us, sleep_until_us};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};

/// A listener for one connection; returns its port. `hold_us` applies to the first chunk that
/// arrives after `start_us` (the monotonic clock).
pub fn delaying(
    to_port: u16,
    start_us: std::sync::Arc<std::sync::atomic::AtomicU64>,
    hold_us: u64,
) -> std::io::Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        // The held packet's release is timed like the conductor's signals (its children
        // threads inherit the priority).
        crate::servers::prioritise_this_thread();
        let Ok((client, _)) = listener.accept() else {
            return;
        };
        let Ok(server) = TcpStream::connect(("127.0.0.1", to_port)) else {
            return;
        };
        let _ = client.set_nodelay(true);
        let _ = server.set_nodelay(true);
        let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
            return;
        };
        std::thread::spawn(move || pump(s2, c2, None));
        pump(client, server, Some((start_us, hold_us)));
    });
    Ok(port)
}

type Hold = (std::sync::Arc<std::sync::atomic::AtomicU64>, u64);

fn pump(mut from: TcpStream, mut to: TcpStream, mut hold: Option<Hold>) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some((start, hold_us)) = &hold {
            let start = start.load(std::sync::atomic::Ordering::SeqCst);
            let now = mono_us();
            if start != 0 && now >= start {
                sleep_until_us(now + hold_us);
                hold = None;
            }
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    /// An echo server behind the proxy: before the start bytes pass at once; the first chunk
    /// after it waits the hold; the next one passes at once again.
    #[test]
    fn the_first_chunk_after_the_start_is_held_and_only_it() {
        let echo = TcpListener::bind(("127.0.0.1", 0)).expect("bind");
        let echo_port = echo.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            let (mut s, _) = echo.accept().expect("accept");
            let mut b = [0u8; 64];
            while let Ok(n) = s.read(&mut b) {
                if n == 0 || s.write_all(&b[..n]).is_err() {
                    break;
                }
            }
        });
        let start = Arc::new(AtomicU64::new(0));
        // Bounds far apart (a 1 s hold against half a second for a loopback round trip), so a loaded
        // machine cannot blur them: under stress-ng --cpu 2, beside the lab's presets, an
        // unheld round trip once took more than the 100 ms this test allowed.
        let port = delaying(echo_port, start.clone(), 1_000_000).expect("proxy");
        let mut c = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let round_trip = |c: &mut TcpStream| {
            let t = mono_us();
            c.write_all(b"x").expect("write");
            let mut b = [0u8; 1];
            c.read_exact(&mut b).expect("read");
            mono_us() - t
        };
        assert!(
            round_trip(&mut c) < 500_000,
            "before the start nothing is held"
        );
        start.store(mono_us(), std::sync::atomic::Ordering::SeqCst);
        assert!(
            round_trip(&mut c) >= 1_000_000,
            "the first chunk after the start waits"
        );
        assert!(round_trip(&mut c) < 500_000, "what follows passes at once");
    }
}
