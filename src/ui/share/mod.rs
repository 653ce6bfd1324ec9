//! What leaves the page or comes into it: the hash and localStorage kept in step with the
//! scenario (an effect), and the exports (JSON, SVG, PNG). The decisions are pure in
//! `model::persist`; these modules only talk to the browser.

pub(super) mod export;
pub(super) mod raster;
pub(super) mod sync;
