//! An instance's own wall clock, for real: `redis-server` runs with the lab's clock shim
//! (`lab/clockshim`, a `LD_PRELOAD` library) and a small shared file holding the offset of its
//! wall clock from the machine's. `Driver` moves the offset during the run as the model's clock
//! for that instance reads (its offset, drift, jumps and slews), so a step forward makes that one
//! server expire keys early while every other process keeps the machine's time.

use crate::clock::{mono_us, sleep_until_us};
use fencing_playground::sim::clock::Clock;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

const LIBRARY: &str = "libfencing_lab_clockshim.so";

/// The shim's path: `FENCING_LAB_CLOCKSHIM`, else beside the running program (or one folder up,
/// for a test binary in `deps/`), where `cargo build -p fencing-lab-clockshim` puts it.
pub fn library() -> std::io::Result<PathBuf> {
    if let Some(p) = std::env::var_os("FENCING_LAB_CLOCKSHIM") {
        return Ok(p.into());
    }
    let exe = std::env::current_exe()?;
    let mut dir = exe.parent().map(Path::to_path_buf);
    while let Some(d) = dir {
        let candidate = d.join(LIBRARY);
        if candidate.is_file() {
            return Ok(candidate);
        }
        dir = d
            .parent()
            .filter(|p| p.ends_with("debug") || p.ends_with("release"))
            .map(Path::to_path_buf);
    }
    Err(std::io::Error::other(format!(
        "the clock shim {LIBRARY} is not built beside {}: run `cargo build -p fencing-lab-clockshim`",
        exe.display()
    )))
}

/// One server's offset file, mapped here for writing.
pub struct ClockFile {
    pub path: PathBuf,
    offset: *const AtomicI64,
}

// SAFETY: the mapping lives as long as the value and is only touched through atomics.
unsafe impl Send for ClockFile {}
// SAFETY: as above: every access is an atomic load or store.
unsafe impl Sync for ClockFile {}

impl ClockFile {
    /// A new offset file (offset 0) in `dir`.
    pub fn create(dir: &Path, name: &str) -> std::io::Result<ClockFile> {
        use std::os::fd::AsRawFd;
        let path = dir.join(format!("{name}.clock"));
        std::fs::write(&path, [0u8; 8])?;
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)?;
        // SAFETY: an 8-byte shared mapping of a file of 8 bytes, checked for failure.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                8,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(ClockFile {
            path,
            offset: p.cast::<AtomicI64>(),
        })
    }

    pub fn set_ns(&self, ns: i64) {
        // SAFETY: the pointer is the live, page-aligned mapping made in `create`.
        unsafe { (*self.offset).store(ns, Ordering::Release) }
    }

    pub fn get_ns(&self) -> i64 {
        // SAFETY: as in `set_ns`.
        unsafe { (*self.offset).load(Ordering::Acquire) }
    }

    /// The environment a server started with this clock needs.
    pub fn env(&self) -> std::io::Result<Vec<(String, PathBuf)>> {
        Ok(vec![
            ("LD_PRELOAD".to_string(), library()?),
            ("FENCING_LAB_CLOCK_FILE".to_string(), self.path.clone()),
        ])
    }
}

impl Drop for ClockFile {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made in `create`, which nothing uses after this.
        unsafe { libc::munmap(self.offset as *mut libc::c_void, 8) };
    }
}

/// The offset of a clock at true simulated instant `t_ms`, in real nanoseconds at `scale_us`
/// real microseconds per simulated millisecond.
pub fn offset_ns(clock: &Clock, t_ms: u64, scale_us: u64) -> i64 {
    clock
        .offset_at(t_ms)
        .saturating_mul(scale_us as i64)
        .saturating_mul(1000)
}

/// Moves each file's offset as its clock reads, from a start instant on.
pub struct Driver {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Driver {
    /// Sets each offset to its clock's at 0 now, then, from `t0_us` (the monotonic clock) on,
    /// to its reading at each simulated millisecond `t` from half a millisecond before `t`, so a
    /// request the model runs at `t` (and that reaches the server up to the lab's tolerance
    /// after it) reads the clock at `t`, until `end_ms`.
    pub fn start(
        clocks: Vec<(Arc<ClockFile>, Clock)>,
        t0_us: u64,
        scale_us: u64,
        end_ms: u64,
    ) -> Driver {
        Driver::start_leading(clocks, t0_us, scale_us, end_ms, scale_us / 2)
    }

    /// As `start`, each reading set `lead_us` real µs before its instant: a server's half a
    /// simulated ms before (`start`), a client's own clock at the instant (0), as the model
    /// moves a client's clock exactly there.
    pub fn start_leading(
        clocks: Vec<(Arc<ClockFile>, Clock)>,
        t0_us: u64,
        scale_us: u64,
        end_ms: u64,
        lead_us: u64,
    ) -> Driver {
        for (f, c) in &clocks {
            f.set_ns(offset_ns(c, 0, scale_us));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            crate::servers::prioritise_this_thread();
            for t in 1..=end_ms {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                let at = (t0_us + t * scale_us).saturating_sub(lead_us);
                // A long stretch is slept in slices, so a stopped run ends its driver soon.
                while mono_us() + 50_000 < at {
                    if flag.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                sleep_until_us(at);
                for (f, c) in &clocks {
                    let ns = offset_ns(c, t, scale_us);
                    if f.get_ns() != ns {
                        f.set_ns(ns);
                    }
                }
            }
        });
        Driver {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
