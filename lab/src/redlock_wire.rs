//! A Redlock client's connections: one TCP connection per instance (through the lab's proxy),
//! read without blocking, so one thread can ask several instances at once, wait for their
//! replies up to a deadline, and still read what reached its socket buffer while it was stopped.
//! Commands are packed and replies parsed by the `redis` crate; this file only cuts the byte
//! stream into whole replies and matches each to its request, oldest first. A connection whose
//! request went unanswered by its deadline (a round's timeout, or an unlock's, which nobody
//! waits for) is closed (a late reply dies with it) and dialled again for the next request, as
//! client libraries do after a timeout.

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

/// One instance's connection.
pub struct Conn {
    port: u16,
    stream: Option<TcpStream>,
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
            stream: None,
            buf: Vec::new(),
            pending: VecDeque::new(),
        }
    }

    /// Writes one packed command whose reply is due by `due_us` (the monotonic clock); false
    /// when the instance cannot be reached at all. A connection on which an earlier request is
    /// past its due time unanswered is closed first and dialled again: its replies, if any
    /// come, would be taken for this request's.
    pub fn send(&mut self, packed: &[u8], tag: Tag, due_us: u64) -> bool {
        let now = crate::clock::mono_us();
        if self.pending.front().is_some_and(|p| p.1 < now) {
            self.close();
        }
        if self.stream.is_none() {
            let Ok(s) = TcpStream::connect(("127.0.0.1", self.port)) else {
                return false;
            };
            let _ = s.set_nodelay(true);
            if s.set_nonblocking(true).is_err() {
                return false;
            }
            self.stream = Some(s);
        }
        let ok = self
            .stream
            .as_mut()
            .is_some_and(|s| write_all_nonblocking(s, packed));
        if ok {
            self.pending.push_back((tag, due_us));
        } else {
            self.close();
        }
        ok
    }

    /// Closes the connection: what it still waited for will not come.
    pub fn close(&mut self) {
        self.stream = None;
        self.buf.clear();
        self.pending.clear();
    }

    pub fn waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    pub fn fd(&self) -> Option<i32> {
        self.stream.as_ref().map(|s| s.as_raw_fd())
    }

    /// Reads what is in the socket now and returns every whole reply with its request's tag.
    pub fn read_ready(&mut self) -> Vec<(Tag, Reply)> {
        let mut chunk = [0u8; 4096];
        let mut eof = false;
        if let Some(s) = self.stream.as_mut() {
            loop {
                match s.read(&mut chunk) {
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
        }
        let mut out = Vec::new();
        while let Some(n) = frame_len(&self.buf) {
            let bytes: Vec<u8> = self.buf.drain(..n).collect();
            let reply = redis::parse_redis_value(&bytes).map_err(|e| e.to_string());
            match self.pending.pop_front() {
                Some((tag, _)) => out.push((tag, reply)),
                None => break,
            }
        }
        if eof {
            self.close();
        }
        out
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
    use super::frame_len;

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
