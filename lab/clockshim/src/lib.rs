//! The lab's clock shim, loaded into one `redis-server` with `LD_PRELOAD`: it moves that
//! server's wall clock (`CLOCK_REALTIME`, `gettimeofday`, `time`) by an offset the lab changes
//! while the run goes on, so an instance's clock can jump or slew as a scenario says while the
//! other servers keep the machine's time. Redis stamps a key's expiry with its wall clock and
//! compares the wall clock with it, so a step forward expires keys early on that one server.
//!
//! The offset, in nanoseconds, is the first 8 bytes of the file named by
//! `FENCING_LAB_CLOCK_FILE`, mapped shared: the lab writes it, every reading of the server's
//! clock loads it. Without that variable (or when the file cannot be mapped) the offset is 0.
//!
//! The true time comes from the `clock_gettime` system call itself, never from the C library
//! or the vDSO: the shim calls nothing that could read a clock through its own symbols again
//! (the recursion that hangs a plain `LD_PRELOAD` of libfaketime in redis-server 7). The file
//! is mapped once, when the library is loaded, before the server's `main` runs.

use std::ptr::null_mut;
use std::sync::atomic::{AtomicI64, AtomicPtr, Ordering};

/// The mapped offset, or null when there is none.
static OFFSET: AtomicPtr<AtomicI64> = AtomicPtr::new(null_mut());

const NS: i64 = 1_000_000_000;

/// Maps the offset file. Runs from `.init_array`, while the process is still one thread.
extern "C" fn map_offset() {
    // SAFETY: `getenv` returns null or a NUL-terminated string owned by the environment; the
    // file descriptor and the mapping are checked before use, and the mapping is never unmapped.
    unsafe {
        let path = libc::getenv(c"FENCING_LAB_CLOCK_FILE".as_ptr());
        if path.is_null() {
            return;
        }
        let fd = libc::open(path, libc::O_RDWR | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        let p = libc::mmap(null_mut(), 8, libc::PROT_READ, libc::MAP_SHARED, fd, 0);
        libc::close(fd);
        if p != libc::MAP_FAILED {
            OFFSET.store(p.cast::<AtomicI64>(), Ordering::Release);
        }
    }
}

#[used]
#[link_section = ".init_array"]
static MAP_OFFSET: extern "C" fn() = map_offset;

fn offset_ns() -> i64 {
    let p = OFFSET.load(Ordering::Acquire);
    if p.is_null() {
        return 0;
    }
    // SAFETY: a non-null pointer is the start of a live, 8-byte aligned shared mapping.
    unsafe { (*p).load(Ordering::Acquire) }
}

/// The kernel's reading of `clock`, by the system call (no vDSO, no C library clock code).
///
/// # Safety
/// `ts` must be valid for writes.
unsafe fn true_time(clock: libc::clockid_t, ts: *mut libc::timespec) -> libc::c_int {
    libc::syscall(libc::SYS_clock_gettime, clock as libc::c_long, ts) as libc::c_int
}

// The lab runs on 64-bit Linux, where `time_t` and `c_long` are `i64`.
fn shifted(ts: &mut libc::timespec, by_ns: i64) {
    let total = ts
        .tv_sec
        .saturating_mul(NS)
        .saturating_add(ts.tv_nsec)
        .saturating_add(by_ns);
    ts.tv_sec = total.div_euclid(NS) as libc::time_t;
    ts.tv_nsec = total.rem_euclid(NS) as libc::c_long;
}

fn is_wall(clock: libc::clockid_t) -> bool {
    matches!(
        clock,
        libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE | libc::CLOCK_TAI
    )
}

/// `clock_gettime(2)`: the wall clocks moved by the offset, every other clock as it is.
///
/// # Safety
/// As the C function: `ts` must be valid for writes.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(
    clock: libc::clockid_t,
    ts: *mut libc::timespec,
) -> libc::c_int {
    let rc = true_time(clock, ts);
    if rc == 0 && is_wall(clock) && !ts.is_null() {
        shifted(&mut *ts, offset_ns());
    }
    rc
}

/// `gettimeofday(2)`: the moved wall clock in microseconds; the obsolete time zone is zeroed.
///
/// # Safety
/// As the C function: `tv` and `tz` must each be null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn gettimeofday(
    tv: *mut libc::timeval,
    tz: *mut libc::c_void,
) -> libc::c_int {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let rc = true_time(libc::CLOCK_REALTIME, &mut ts);
    if rc != 0 {
        return rc;
    }
    shifted(&mut ts, offset_ns());
    if !tv.is_null() {
        (*tv).tv_sec = ts.tv_sec;
        (*tv).tv_usec = (ts.tv_nsec / 1000) as libc::suseconds_t;
    }
    if !tz.is_null() {
        std::ptr::write_bytes(tz.cast::<u8>(), 0, 8);
    }
    0
}

/// `time(2)`: the moved wall clock in whole seconds.
///
/// # Safety
/// As the C function: `t` must be null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn time(t: *mut libc::time_t) -> libc::time_t {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    if true_time(libc::CLOCK_REALTIME, &mut ts) != 0 {
        return -1;
    }
    shifted(&mut ts, offset_ns());
    if !t.is_null() {
        *t = ts.tv_sec;
    }
    ts.tv_sec
}
