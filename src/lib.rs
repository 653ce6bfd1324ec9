//! A playground that shows why a lease lock is not mutual exclusion and how fencing tokens fix
//! it. `sim` is the pure core; the browser-facing modules exist only on wasm32.

pub mod sim;
