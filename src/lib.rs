//! A playground that shows why a lease lock is not mutual exclusion and how fencing tokens fix
//! it. `sim` is the pure core; `ui` holds the Yew front end (its state and geometry are plain
//! Rust and build everywhere); `api` is the JavaScript surface, compiled only for wasm32.

// The first stage of the page (feature `first-stage`): the default scenario's timeline without
// Yew, for the first visit until the full page has loaded.
#[cfg(not(feature = "search-worker"))]
pub mod first;
pub mod link;
pub mod sim;
// The search workers' wasm (feature `search-worker`) carries the core and the search API only.
#[cfg(not(feature = "search-worker"))]
pub mod ui;

// The first stage exports its own small surface instead (see `first::js`).
#[cfg(all(target_arch = "wasm32", not(feature = "first-stage")))]
mod api;

// The page allocates on every drag frame (the runs, the lanes' drawing): Talc in place of the
// default wasm allocator (dlmalloc) makes each allocation cheaper and the module smaller.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
