//! A Redlock client's connections: one TCP connection per instance (through the lab's proxy),
//! read without blocking, so one thread can ask several instances at once, wait for their
//! replies up to a deadline, and still read what reached its socket buffer while it was stopped.
//! Commands are packed and replies parsed by the `redis` crate; this file only cuts the byte
//! stream into whole replies and matches each to its request, oldest first. A connection whose
//! request went unanswered by its deadline (a round's timeout, or an unlock's, which nobody
//! waits for) is closed (a late reply dies with it), as client libraries do after a timeout; a
//! request never waits behind another on one connection (each instance has a small pool).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;

/// What a request was for, so its reply goes to the right place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    /// Round `id`'s request to this instance.
    Round(u64),
    /// An unlock nobody waits for.
    Unlock,
    Ping,
}

/// One instance's connections, a small pool: a request goes on a connection with nothing
/// unanswered, or on a new one, never behind an earlier request still waiting (a reply there
/// would be taken for the wrong request when the earlier one was lost on the way, as a cut
/// drops it; a pooled client library does the same: a busy connection is not handed out).
pub struct Conn {
    port: u16,
    streams: Vec<Stream>,
}

/// One TCP connection of the pool.
struct Stream {
    stream: TcpStream,
    buf: Vec<u8>,
    /// What each request still unanswered was for, and by when its reply is due.
    pending: VecDeque<(Tag, u64)>,
}

/// A reply as the client reads it.
pub type Reply = Result<redis::Value, String>;

impl Conn {
    pub fn new(port: u16) -> Conn {
        Conn {
            port,
            streams: Vec::new(),
        }
    }

    /// Writes one packed command whose reply is due by `due_us` (the monotonic clock); false
    /// when the instance cannot be reached at all. A connection on which an earlier request is
    /// past its due time unanswered is closed first: its replies, if any come, are late. One
    /// still waiting within its time stays open for its reply, and the command goes on an idle
    /// connection, dialled if there is none.
    pub fn send(&mut self, packed: &[u8], tag: Tag, due_us: u64) -> bool {
        let now = crate::clock::mono_us();
        self.streams
            .retain(|s| s.pending.front().is_none_or(|p| p.1 >= now));
        let idle = match self.streams.iter().position(|s| s.pending.is_empty()) {
            Some(i) => i,
            None => {
                let Ok(s) = TcpStream::connect(("127.0.0.1", self.port)) else {
                    return false;
                };
                let _ = s.set_nodelay(true);
                if s.set_nonblocking(true).is_err() {
                    return false;
                }
                self.streams.push(Stream {
                    stream: s,
                    buf: Vec::new(),
                    pending: VecDeque::new(),
                });
                self.streams.len() - 1
            }
        };
        let s = &mut self.streams[idle];
        if write_all_nonblocking(&mut s.stream, packed) {
            s.pending.push_back((tag, due_us));
            true
        } else {
            self.streams.remove(idle);
            false
        }
    }

    /// Closes every connection: what they still waited for will not come.
    pub fn close(&mut self) {
        self.streams.clear();
    }

    pub fn waiting(&self) -> bool {
        self.streams.iter().any(|s| !s.pending.is_empty())
    }

    /// The connections that wait for a reply.
    pub fn fds(&self) -> Vec<i32> {
        self.streams
            .iter()
            .filter(|s| !s.pending.is_empty())
            .map(|s| s.stream.as_raw_fd())
            .collect()
    }

    /// Reads what is in the sockets now and returns every whole reply with its request's tag.
    pub fn read_ready(&mut self) -> Vec<(Tag, Reply)> {
        let mut out = Vec::new();
        self.streams.retain_mut(|s| s.read_ready(&mut out));
        out
    }
}

impl Stream {
    /// Reads what is in the socket into `out`; false when the connection has ended.
    fn read_ready(&mut self, out: &mut Vec<(Tag, Reply)>) -> bool {
        let mut chunk = [0u8; 4096];
        let mut eof = false;
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    eof = true;
                    break;
                }
            }
        }
        while let Some(n) = frame_len(&self.buf) {
            let bytes: Vec<u8> = self.buf.drain(..n).collect();
            let reply = redis::parse_redis_value(&bytes).map_err(|e| e.to_string());
            match self.pending.pop_front() {
                Some((tag, _)) => out.push((tag, reply)),
                None => break,
            }
        }
        !eof
    }
}

fn write_all_nonblocking(s: &mut TcpStream, mut bytes: &[u8]) -> bool {
    // A command is a few dozen bytes into an empty socket buffer: it goes at once.
    for _ in 0..1000 {
        match s.write(bytes) {
            Ok(0) => return false,
            Ok(n) if n == bytes.len() => return true,
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::yield_now(),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    false
}

/// The length of the first whole RESP2 reply in `b`, if it is all there.
pub fn frame_len(b: &[u8]) -> Option<usize> {
    let line_end = |from: usize| {
        b.get(from..)?
            .windows(2)
            .position(|w| w == b"\r\n")
            .map(|p| from + p + 2)
    };
    let number =
        |end: usize| -> Option<i64> { std::str::from_utf8(b.get(1..end - 2)?).ok()?.parse().ok() };
    match b.first()? {
        b'+' | b'-' | b':' => line_end(0),
        b'$' => {
            let end = line_end(0)?;
            let n = number(end)?;
            if n < 0 {
                return Some(end);
            }
            let total = end + usize::try_from(n).ok()? + 2;
            (b.len() >= total).then_some(total)
        }
        b'*' => {
            let end = line_end(0)?;
            let n = number(end)?;
            let mut at = end;
            for _ in 0..n.max(0) {
                at += frame_len(b.get(at..)?)?;
            }
            Some(at)
        }
        _ => Some(b.len()),
    }
}

/// Waits until one of `fds` can be read or the monotonic clock reaches `until_us`.
pub fn wait_readable(fds: &[i32], until_us: u64) {
    let now = crate::clock::mono_us();
    if now >= until_us {
        return;
    }
    let left = until_us - now;
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: (left / 1_000_000) as libc::time_t,
        tv_nsec: ((left % 1_000_000) * 1000) as libc::c_long,
    };
    // SAFETY: `polls` is a valid array of `polls.len()` pollfds and `ts` a valid timespec;
    // ppoll only writes the `revents` fields.
    unsafe {
        libc::ppoll(
            polls.as_mut_ptr(),
            polls.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::{frame_len, wait_readable, Conn, Tag};
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A request lost on the way (as the lab's proxy drops one sent while the instance is down)
    /// must not take the reply of the next request: random-12-128, where R1's `SET` after its
    /// restart was answered `OK` and the client read that as the lost unlock's reply. The stand-in
    /// server swallows the first command it ever reads and answers each later one `+OK`.
    #[test]
    fn a_request_never_waits_behind_an_unanswered_one() {
        let l = TcpListener::bind(("127.0.0.1", 0)).expect("bind");
        let port = l.local_addr().expect("addr").port();
        let seen = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || {
            for s in l.incoming() {
                let Ok(mut s) = s else { return };
                let seen = seen.clone();
                std::thread::spawn(move || {
                    let mut b = [0u8; 256];
                    while let Ok(n) = s.read(&mut b) {
                        if n == 0 {
                            return;
                        }
                        if seen.fetch_add(1, Ordering::SeqCst) > 0
                            && s.write_all(b"+OK\r\n").is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        let mut c = Conn::new(port);
        let far = crate::clock::mono_us() + 60_000_000;
        assert!(c.send(b"*1\r\n$4\r\nPING\r\n", Tag::Unlock, far));
        // The server has read the first command before the second is sent.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(c.send(b"*1\r\n$4\r\nPING\r\n", Tag::Round(1), far));
        let until = crate::clock::mono_us() + 5_000_000;
        let mut got = Vec::new();
        while got.is_empty() && crate::clock::mono_us() < until {
            wait_readable(&c.fds(), until);
            got = c.read_ready();
        }
        let tags: Vec<Tag> = got.iter().map(|(t, _)| *t).collect();
        assert_eq!(tags, vec![Tag::Round(1)], "the reply went to the round");
        assert!(
            c.waiting(),
            "the lost unlock still waits on its own connection"
        );
    }

    #[test]
    fn whole_replies_are_cut_from_the_stream() {
        for (bytes, want) in [
            (&b"+OK\r\n"[..], Some(5)),
            (b"+OK\r", None),
            (b":33\r\n:34\r\n", Some(5)),
            (b"$-1\r\n", Some(5)),
            (b"$4\r\nab", None),
            (b"$4\r\nabcd\r\n+OK\r\n", Some(10)),
            (b"*2\r\n:1\r\n$1\r\nx\r\n", Some(15)),
            (b"*2\r\n:1\r\n", None),
            (b"", None),
        ] {
            assert_eq!(
                frame_len(bytes),
                want,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
