#![cfg(target_arch = "wasm32")]
