//! The one clock the conductor, its proxies and every client process read: the machine's
//! monotonic clock (`CLOCK_MONOTONIC`), which all processes share, so an instant written by one
//! process means the same in another. Times are microseconds.

use std::time::Duration;

/// The monotonic clock now, in microseconds.
pub fn mono_us() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64) * 1_000_000 + (ts.tv_nsec as u64) / 1000
}

/// Sleeps until the monotonic clock reads `at_us`, spinning the last stretch for precision.
pub fn sleep_until_us(at_us: u64) {
    loop {
        let now = mono_us();
        if now >= at_us {
            return;
        }
        let left = at_us - now;
        if left > 2000 {
            std::thread::sleep(Duration::from_micros(left - 1000));
        } else {
            std::thread::yield_now();
        }
    }
}

/// Sends `signal` to process `pid`; false when it is gone.
pub fn signal(pid: u32, signal: i32) -> bool {
    // SAFETY: kill(2) takes any pid and signal number and only reports errors.
    unsafe { libc::kill(pid as libc::pid_t, signal) == 0 }
}
