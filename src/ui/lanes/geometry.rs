//! Screen coordinates vs simulation time, and where each lane sits. One small pure module
//! converts both ways so the drag math and the layout are tested natively. Everything is in
//! whole CSS pixels and whole milliseconds: integers keep the SVG attributes short and keep
//! float formatting out of the wasm. A zoomed timeline is drawn wider than the box that shows
//! it and scrolls sideways; `Zoom` and the scroll helpers keep that arithmetic here too.

use crate::sim::scenario::MAX_TIME_MS;

/// Height of the time axis above the lanes.
pub const HEADER_PX: i32 = 34;
pub const LOCK_LANE_PX: i32 = 64;
pub const CLIENT_LANE_PX: i32 = 100;
pub const STORAGE_LANE_PX: i32 = 96;
pub const GHOST_LANE_PX: i32 = 76;
pub const FOOT_PX: i32 = 6;
/// One Redlock instance's lane: its keys on top, its clock jumps, crashes and partitions below.
pub const INSTANCE_LANE_PX: i32 = 48;
/// Extra room at the bottom of a client lane for its Redlock attempts.
pub const ATTEMPT_ROW_PX: i32 = 22;
/// The approximate advance of one character of the 12 px label font.
pub const CHAR_PX: i32 = 7;
/// The gutter of a narrow timeline with a lane per Redlock instance.
const NARROW_INSTANCE_GUTTER_PX: i32 = 92;
/// Ticks are spaced at least this far apart.
const MIN_TICK_GAP_PX: i64 = 75;

/// A linear map between `[0, end_ms]` and `[left_px, right_px]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    pub end_ms: u64,
    pub left_px: i32,
    pub right_px: i32,
}

impl Axis {
    pub fn new(end_ms: u64, left_px: i32, right_px: i32) -> Axis {
        Axis {
            end_ms: end_ms.max(1),
            left_px,
            right_px: right_px.max(left_px + 1),
        }
    }

    fn span_px(&self) -> i64 {
        i64::from(self.right_px - self.left_px)
    }

    /// The x of an instant (rounded to the nearest pixel; instants past the end lie past it).
    pub fn x(&self, t_ms: u64) -> i32 {
        let t = t_ms.min(MAX_TIME_MS.saturating_mul(4)) as i64;
        let end = self.end_ms as i64;
        let offset = (t * self.span_px() + end / 2) / end;
        (i64::from(self.left_px) + offset).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32
    }

    /// The instant under an x (rounded to the nearest ms, never below 0 nor past the limit).
    pub fn time_at(&self, x_px: i32) -> u64 {
        let dx = i64::from(x_px) - i64::from(self.left_px);
        if dx <= 0 {
            return 0;
        }
        let span = self.span_px();
        let t = (dx * self.end_ms as i64 + span / 2) / span;
        (t as u64).min(MAX_TIME_MS)
    }

    /// Pixels per millisecond, at least 1 when the axis is zoomed in (for keyboard hints).
    pub fn width_of(&self, d_ms: u64) -> i32 {
        (self.x(d_ms) - self.left_px).max(0)
    }

    /// Round instants for the tick marks: every 1, 2 or 5 × 10ⁿ ms, far enough apart to read.
    pub fn ticks(&self) -> Vec<u64> {
        let step = tick_step(self.end_ms, self.span_px());
        (0..=self.end_ms / step).map(|i| i * step).collect()
    }
}

/// The smallest 1-2-5 step that keeps ticks `MIN_TICK_GAP_PX` apart.
pub fn tick_step(end_ms: u64, span_px: i64) -> u64 {
    let mut base: u64 = 1;
    loop {
        for m in [1, 2, 5] {
            let step = base.saturating_mul(m);
            if (step as i64).saturating_mul(span_px)
                >= MIN_TICK_GAP_PX.saturating_mul(end_ms as i64)
                || step >= MAX_TIME_MS
            {
                return step;
            }
        }
        base = base.saturating_mul(10);
    }
}

/// How far the axis reaches: everything the run touched, rounded up to a multiple of 10 ms.
pub fn axis_end_ms(trace_end_ms: u64, horizon_ms: u64) -> u64 {
    let end = trace_end_ms.max(horizon_ms).max(10);
    end.div_ceil(10).saturating_mul(10)
}

/// A pointer's client x turned into the SVG's own x. The SVG's view box is as wide as the
/// element, but a zoomed or transformed page can make the two differ.
pub fn svg_x(client_x: f64, rect_left: f64, rect_width: f64, view_width_px: i32) -> i32 {
    let usable = rect_width > 0.0 && client_x.is_finite() && rect_left.is_finite();
    if !usable {
        return 0;
    }
    let x = (client_x - rect_left) * f64::from(view_width_px) / rect_width;
    x.round().clamp(-1.0e6, 1.0e6) as i32
}

/// Same for y, with the view box's height.
pub fn svg_y(client_y: f64, rect_top: f64, rect_height: f64, view_height_px: i32) -> i32 {
    svg_x(client_y, rect_top, rect_height, view_height_px)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKind {
    Lock,
    /// One instance of a Redlock service.
    Instance(usize),
    Client(usize),
    Storage,
    /// The same schedule's storage without fencing (or with it, when fencing is off).
    Ghost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    pub kind: LaneKind,
    pub top_px: i32,
    pub height_px: i32,
}

impl Lane {
    pub fn bottom_px(&self) -> i32 {
        self.top_px + self.height_px
    }
}

/// Where everything goes for one width and one number of clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub width_px: i32,
    pub height_px: i32,
    /// Width of the lane names on the left.
    pub gutter_px: i32,
    pub lanes: Vec<Lane>,
    pub axis: Axis,
    /// Client lanes have a row for Redlock attempts at the bottom.
    pub attempt_rows: bool,
}

/// How the lock service is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockView {
    /// A single Redis: one lane.
    Single,
    /// Redlock as one "lock service" lane.
    Collapsed,
    /// Redlock with a lane per instance.
    Instances(usize),
}

impl Layout {
    pub fn new(width_px: u32, clients: usize, ghost: bool, axis_end_ms: u64) -> Layout {
        Layout::with_lock(width_px, clients, LockView::Single, ghost, axis_end_ms)
    }

    /// The layout with the lock service drawn as `lock` says.
    pub fn with_lock(
        width_px: u32,
        clients: usize,
        lock: LockView,
        ghost: bool,
        axis_end_ms: u64,
    ) -> Layout {
        let width_px = (width_px as i32).clamp(240, MAX_DRAWN_PX);
        // Narrow, the gutter shrinks to the lane names, but an instance lane's clock reading
        // ("clock +60 ms") needs more room than a name.
        let gutter_px = match lock {
            _ if width_px >= 560 => 96,
            LockView::Instances(_) => NARROW_INSTANCE_GUTTER_PX,
            _ => 58,
        };
        let right_pad_px = if width_px < 560 { 12 } else { 24 };
        let mut lanes = Vec::with_capacity(clients + 3);
        let mut top_px = HEADER_PX;
        let mut push = |kind, height_px| {
            lanes.push(Lane {
                kind,
                top_px,
                height_px,
            });
            top_px += height_px;
        };
        match lock {
            LockView::Instances(n) => {
                for i in 0..n {
                    push(LaneKind::Instance(i), INSTANCE_LANE_PX);
                }
            }
            _ => push(LaneKind::Lock, LOCK_LANE_PX),
        }
        let attempt_rows = lock != LockView::Single;
        let client_px = CLIENT_LANE_PX + if attempt_rows { ATTEMPT_ROW_PX } else { 0 };
        for c in 0..clients {
            push(LaneKind::Client(c), client_px);
        }
        push(LaneKind::Storage, STORAGE_LANE_PX);
        if ghost {
            push(LaneKind::Ghost, GHOST_LANE_PX);
        }
        Layout {
            width_px,
            height_px: top_px + FOOT_PX,
            gutter_px,
            lanes,
            axis: Axis::new(axis_end_ms, gutter_px + 8, width_px - right_pad_px),
            attempt_rows,
        }
    }

    pub fn lane(&self, kind: LaneKind) -> Option<Lane> {
        self.lanes.iter().copied().find(|l| l.kind == kind)
    }

    pub fn lane_at(&self, y_px: i32) -> Option<LaneKind> {
        self.lanes
            .iter()
            .find(|l| l.top_px <= y_px && y_px < l.bottom_px())
            .map(|l| l.kind)
    }

    /// The instance whose lane is under `y_px`, if any.
    pub fn instance_at(&self, y_px: i32) -> Option<usize> {
        match self.lane_at(y_px) {
            Some(LaneKind::Instance(i)) => Some(i),
            _ => None,
        }
    }

    /// The instance whose lane has `y_px` in its middle half. Instance lanes are narrow, so a
    /// dragged event changes instance only once the pointer is well inside another lane; a
    /// sideways drag that drifts a little keeps its instance.
    pub fn instance_core_at(&self, y_px: i32) -> Option<usize> {
        let i = self.instance_at(y_px)?;
        let lane = self.lane(LaneKind::Instance(i))?;
        let quarter = lane.height_px / 4;
        (lane.top_px + quarter <= y_px && y_px < lane.bottom_px() - quarter).then_some(i)
    }

    /// The top of a client's attempt row, if client lanes have one.
    pub fn attempt_row_top(&self, client: usize) -> Option<i32> {
        let lane = self
            .lane(LaneKind::Client(client))
            .filter(|_| self.attempt_rows)?;
        Some(lane.bottom_px() - ATTEMPT_ROW_PX)
    }

    /// The client whose lane is under `y_px`, if any.
    pub fn client_at(&self, y_px: i32) -> Option<usize> {
        match self.lane_at(y_px) {
            Some(LaneKind::Client(c)) => Some(c),
            _ => None,
        }
    }
}

/// The widest the timeline is ever drawn, whatever the zoom.
pub const MAX_DRAWN_PX: i32 = 8192;
/// The zoom levels: how many times wider than its box the timeline is drawn.
const ZOOMS: [u32; 5] = [1, 2, 4, 8, 16];

/// How far the time axis is zoomed in. It is view state, like the box's width: the timeline
/// keeps it, and it never enters a scenario, the undo history or a link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Zoom(usize);

impl Zoom {
    /// How many times wider than its box the timeline is drawn at this level.
    pub fn factor(self) -> u32 {
        ZOOMS[self.0.min(ZOOMS.len() - 1)]
    }

    /// The width the timeline is drawn at when `visible_px` of it show.
    pub fn drawn_px(self, visible_px: u32) -> u32 {
        let widest = MAX_DRAWN_PX as u32;
        visible_px
            .saturating_mul(self.factor())
            .min(widest)
            .max(visible_px.min(widest))
    }

    /// One level in, if there is one and it draws the timeline wider than this one does.
    pub fn zoom_in(self, visible_px: u32) -> Option<Zoom> {
        let next = Zoom(self.0 + 1);
        (self.0 + 1 < ZOOMS.len() && next.drawn_px(visible_px) > self.drawn_px(visible_px))
            .then_some(next)
    }

    /// One level out, if this is not the whole run already.
    pub fn zoom_out(self) -> Option<Zoom> {
        self.0.checked_sub(1).map(Zoom)
    }
}

/// The instant in the middle of a scroll box `visible_px` wide scrolled `scroll_left_px` along
/// the drawn timeline.
pub fn centre_ms(axis: &Axis, scroll_left_px: i32, visible_px: i32) -> u64 {
    axis.time_at(scroll_left_px.saturating_add(visible_px / 2))
}

/// How far to scroll a box `visible_px` wide along a timeline `drawn_px` wide so that instant
/// `t_ms` sits in its middle, or as near as the ends allow.
pub fn scroll_to_centre(axis: &Axis, t_ms: u64, visible_px: i32, drawn_px: i32) -> i32 {
    let most = drawn_px.saturating_sub(visible_px).max(0);
    axis.x(t_ms).saturating_sub(visible_px / 2).clamp(0, most)
}

/// A client's colour class (`fp-c0` to `fp-c5`, the palette repeats after six clients), as a
/// static string: the lanes draw it on every render, mid-drag too, without allocating.
pub fn colour_class(client: usize) -> &'static str {
    ["fp-c0", "fp-c1", "fp-c2", "fp-c3", "fp-c4", "fp-c5"][client % 6]
}

/// The approximate width of a label in the 12 px font.
pub fn text_width_px(text: &str) -> i32 {
    (text.chars().count() as i32).saturating_mul(CHAR_PX)
}

/// The approximate width of a label in the 11 px font.
pub fn small_text_width_px(text: &str) -> i32 {
    (text.chars().count() as i32).saturating_mul(63) / 10
}

/// Where a label of `width_px` that wants to start at `x_px` starts so that it stays inside
/// `[left_px, right_px]` (it slides left at the right edge).
pub fn fit_label(x_px: i32, width_px: i32, left_px: i32, right_px: i32) -> i32 {
    x_px.min(right_px - width_px).max(left_px)
}

/// Greedy row assignment for labels given as `(start_px, end_px)` in the order they should
/// claim space: each goes to the first row where it does not overlap, or, if none is free, to
/// the row that frees up first.
pub fn place_rows(spans: &[(i32, i32)], rows: usize) -> Vec<usize> {
    const GAP_PX: i32 = 6;
    let rows = rows.max(1);
    let mut ends = vec![i32::MIN; rows];
    spans
        .iter()
        .map(|&(start, end)| {
            let row = (0..rows)
                .find(|&r| ends[r].saturating_add(GAP_PX) <= start)
                .unwrap_or_else(|| (0..rows).min_by_key(|&r| ends[r]).unwrap_or(0));
            ends[row] = ends[row].max(end);
            row
        })
        .collect()
}

/// Labels along a lane, each given as the x where it wants to start and its text, in any
/// order: taken in the order of those x (ties keep their order), each slid inside
/// `[left_px, right_px]` and given one of `rows` rows so that neighbours avoid each other.
/// Both renderers of the lanes (the full page's and the first stage's) place their step badges
/// and write labels with it. Answers, in that order, `(index into labels, left x, row)`.
pub fn place_labels(
    labels: &[(i32, &str)],
    left_px: i32,
    right_px: i32,
    rows: usize,
) -> Vec<(usize, i32, usize)> {
    let keys: Vec<i64> = labels.iter().map(|&(x, _)| i64::from(x)).collect();
    let order = order_of(&keys);
    let spans: Vec<(i32, i32)> = order
        .iter()
        .map(|&i| {
            let (x, text) = labels[i];
            let w = text_width_px(text);
            let x = fit_label(x, w, left_px, right_px);
            (x, x.saturating_add(w))
        })
        .collect();
    let rows = place_rows(&spans, rows);
    order
        .into_iter()
        .zip(spans)
        .zip(rows)
        .map(|((i, (x, _)), row)| (i, x, row))
        .collect()
}

/// The indices of `keys` in ascending order of key, ties by index. An insertion sort: a lane
/// holds a few dozen parts at most, and the standard library's sorts would each add kilobytes
/// to the wasm for every type they are used with.
pub fn order_of(keys: &[i64]) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::with_capacity(keys.len());
    for i in 0..keys.len() {
        let at = order.partition_point(|&j| keys[j] <= keys[i]);
        order.insert(at, i);
    }
    order
}

/// Hit intervals `[left, right)` for parts centred at `xs` (in any order, answered in the same
/// order): each reaches `half_px` either side, and two parts closer than that split the gap at
/// its midpoint, so no two intervals overlap and a pointer always grabs the nearer part. (B's
/// acquire at 31 ms and its debit at 32 ms shared eight pixels; the debit, drawn later, won
/// them, and a drag meant for the acquire moved the debit.)
pub fn split_hits(xs: &[i32], half_px: i32) -> Vec<(i32, i32)> {
    let keys: Vec<i64> = xs.iter().map(|&x| i64::from(x)).collect();
    let order = order_of(&keys);
    let mid = |a: i32, b: i32| a + (b - a + 1) / 2;
    let mut hits = vec![(0, 0); xs.len()];
    for (k, &i) in order.iter().enumerate() {
        let x = xs[i];
        let left = match k.checked_sub(1) {
            Some(p) => (x - half_px).max(mid(xs[order[p]], x)),
            None => x - half_px,
        };
        let right = match order.get(k + 1) {
            Some(&n) => (x + half_px).min(mid(x, xs[n])),
            None => x + half_px,
        };
        hits[i] = (left, right.max(left));
    }
    hits
}

/// What is left of `span` once every interval of `taken` is removed: its free pieces, in order.
pub fn free_pieces(span: (i32, i32), taken: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let cuts: Vec<(i32, i32)> = taken
        .iter()
        .copied()
        .filter(|&(l, r)| l < r && l < span.1 && r > span.0)
        .collect();
    let mut pieces = Vec::new();
    let mut from = span.0;
    let starts: Vec<i64> = cuts.iter().map(|c| i64::from(c.0)).collect();
    for i in order_of(&starts) {
        let (l, r) = cuts[i];
        if l > from {
            pieces.push((from, l.min(span.1)));
        }
        from = from.max(r);
    }
    if from < span.1 {
        pieces.push((from, span.1));
    }
    pieces
}

/// An interval of x, `[left, right)`.
pub type Span = (i32, i32);

/// The hit areas of one row of a lane, none overlapping another: `points` are handles or
/// markers centred at an x (split as `split_hits` does), `spans` are bars (a pause's body)
/// that take what the points leave, the later of two overlapping bars (drawn on top) first.
pub fn row_hits(points: &[i32], half_px: i32, spans: &[(i32, i32)]) -> (Vec<Span>, Vec<Vec<Span>>) {
    let point_hits = split_hits(points, half_px);
    let mut taken = point_hits.clone();
    let mut span_hits = vec![Vec::new(); spans.len()];
    for (i, &span) in spans.iter().enumerate().rev() {
        let pieces = free_pieces(span, &taken);
        taken.extend_from_slice(&pieces);
        span_hits[i] = pieces;
    }
    (point_hits, span_hits)
}

#[cfg(test)]
mod tests {

    #[test]
    fn colour_classes_repeat_after_six_clients() {
        assert_eq!(colour_class(0), "fp-c0");
        assert_eq!(colour_class(5), "fp-c5");
        assert_eq!(colour_class(6), "fp-c0");
        assert_eq!(colour_class(13), "fp-c1");
    }
    use super::*;

    #[test]
    fn labels_are_placed_in_order_of_x_inside_the_lane_in_rows_that_avoid_each_other() {
        let w = text_width_px("abcd");
        // Given out of order: the first at 100 claims row 0, the second at 100 row 1; the one
        // at 104 overlaps both and goes to the row that frees first (row 0, on a tie); the one
        // far right slides left to end at the right edge, in row 0.
        let labels = [(104, "abcd"), (1_000, "abcd"), (100, "abcd"), (100, "abcd")];
        let placed = place_labels(&labels, 10, 500, 2);
        assert_eq!(
            placed,
            vec![(2, 100, 0), (3, 100, 1), (0, 104, 0), (1, 500 - w, 0)]
        );
        // A label left of the lane starts at its left edge.
        assert_eq!(place_labels(&[(-50, "a")], 10, 500, 2), vec![(0, 10, 0)]);
        assert!(place_labels(&[], 10, 500, 2).is_empty());
    }

    #[test]
    fn time_and_x_round_trip() {
        let axis = Axis::new(80, 100, 1260);
        assert_eq!(axis.x(0), 100);
        assert_eq!(axis.x(80), 1260);
        assert_eq!(axis.x(40), 680);
        for t in 0..=80 {
            assert_eq!(axis.time_at(axis.x(t)), t, "t={t}");
        }
        // Left of the axis is 0 ms; right of it keeps counting, up to the limit.
        assert_eq!(axis.time_at(-500), 0);
        assert_eq!(axis.time_at(1260 + 145), 90);
        assert_eq!(axis.time_at(i32::MAX), MAX_TIME_MS);
        // A pixel between two instants goes to the nearer one.
        assert_eq!(axis.time_at(100 + 7), 0);
        assert_eq!(axis.time_at(100 + 8), 1);
    }

    #[test]
    fn narrow_axes_still_map_and_never_divide_by_zero() {
        let axis = Axis::new(0, 50, 50);
        assert_eq!(axis.time_at(51), 1);
        assert_eq!(axis.x(1), 51);
        let phone = Layout::new(390, 2, true, 80);
        assert_eq!(phone.gutter_px, 58);
        assert!(phone.axis.right_px <= 390);
        assert!(phone.axis.x(80) > phone.axis.x(79));
    }

    #[test]
    fn a_narrow_redlock_gutter_holds_an_instance_clock_reading() {
        let l = Layout::with_lock(390, 2, LockView::Instances(5), true, 140);
        // The clock reading starts 10 px in and must end before the lane's first bar.
        let reading = small_text_width_px("clock −999 ms");
        assert!(
            10 + reading <= l.axis.left_px,
            "{reading} px in a {} px gutter",
            l.gutter_px
        );
        assert_eq!(
            Layout::with_lock(390, 2, LockView::Collapsed, true, 140).gutter_px,
            58
        );
        assert_eq!(l.axis.right_px, 378);
    }

    #[test]
    fn ticks_are_round_and_readable() {
        let cases = [
            (80, 1160, 10),
            (80, 300, 20),
            (1000, 1160, 100),
            (7, 1160, 1),
            (10_000_000, 1160, 1_000_000),
        ];
        for (end, span, want) in cases {
            assert_eq!(tick_step(end, span), want, "end {end} over {span} px");
        }
        assert_eq!(
            Axis::new(80, 0, 1160).ticks(),
            [0, 10, 20, 30, 40, 50, 60, 70, 80]
        );
    }

    #[test]
    fn the_axis_covers_the_run() {
        assert_eq!(axis_end_ms(61, 80), 80);
        assert_eq!(axis_end_ms(95, 80), 100);
        assert_eq!(axis_end_ms(0, 0), 10);
    }

    #[test]
    fn pointer_to_svg_scales_with_the_element() {
        assert_eq!(svg_x(150.0, 50.0, 1000.0, 1000), 100);
        // The element is drawn at half size: one CSS pixel is two view-box pixels.
        assert_eq!(svg_x(150.0, 50.0, 500.0, 1000), 200);
        assert_eq!(svg_x(150.0, 50.0, 0.0, 1000), 0);
        assert_eq!(svg_x(f64::NAN, 50.0, 10.0, 1000), 0);
    }

    #[test]
    fn lanes_stack_and_are_found_by_y() {
        let l = Layout::new(1280, 2, true, 80);
        let kinds: Vec<LaneKind> = l.lanes.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            [
                LaneKind::Lock,
                LaneKind::Client(0),
                LaneKind::Client(1),
                LaneKind::Storage,
                LaneKind::Ghost
            ]
        );
        let b = l.lane(LaneKind::Client(1)).unwrap();
        assert_eq!(b.top_px, HEADER_PX + LOCK_LANE_PX + CLIENT_LANE_PX);
        assert_eq!(l.client_at(b.top_px), Some(1));
        assert_eq!(l.client_at(b.bottom_px() - 1), Some(1));
        assert_eq!(l.client_at(b.bottom_px()), None);
        assert_eq!(l.lane_at(0), None);
        assert_eq!(
            l.height_px,
            b.bottom_px() + STORAGE_LANE_PX + GHOST_LANE_PX + FOOT_PX
        );
    }

    #[test]
    fn redlock_instances_get_a_lane_each_and_clients_an_attempt_row() {
        let l = Layout::with_lock(1280, 2, LockView::Instances(5), true, 140);
        assert_eq!(l.lane(LaneKind::Lock), None);
        let r3 = l.lane(LaneKind::Instance(2)).unwrap();
        assert_eq!(r3.top_px, HEADER_PX + 2 * INSTANCE_LANE_PX);
        assert_eq!(l.instance_at(r3.top_px + 1), Some(2));
        assert_eq!(l.instance_at(r3.bottom_px()), Some(3));
        assert_eq!(l.instance_core_at(r3.top_px + r3.height_px / 2), Some(2));
        assert_eq!(
            l.instance_core_at(r3.top_px + 3),
            None,
            "the edge of a lane is no one's"
        );
        assert_eq!(l.instance_core_at(r3.bottom_px() - 3), None);
        assert_eq!(l.client_at(r3.top_px), None);
        let a = l.lane(LaneKind::Client(0)).unwrap();
        assert_eq!(a.top_px, HEADER_PX + 5 * INSTANCE_LANE_PX);
        assert_eq!(a.height_px, CLIENT_LANE_PX + ATTEMPT_ROW_PX);
        assert_eq!(l.attempt_row_top(0), Some(a.top_px + CLIENT_LANE_PX));
        assert_eq!(l.attempt_row_top(2), None);
        // Collapsed: one lock lane, still with attempt rows.
        let c = Layout::with_lock(1280, 2, LockView::Collapsed, true, 140);
        assert!(c.lane(LaneKind::Lock).is_some() && c.attempt_rows);
        assert_eq!(c.instance_at(HEADER_PX + 1), None);
        // A single Redis looks exactly as before.
        assert_eq!(
            Layout::with_lock(1280, 2, LockView::Single, true, 80),
            Layout::new(1280, 2, true, 80)
        );
        assert_eq!(Layout::new(1280, 2, true, 80).attempt_row_top(0), None);
    }

    #[test]
    fn zoom_draws_wider_up_to_a_limit_and_back() {
        let phone = 372;
        let mut z = Zoom::default();
        assert_eq!((z.factor(), z.drawn_px(phone)), (1, 372));
        assert_eq!(z.zoom_out(), None, "the whole run is as far out as it goes");
        let mut widths = vec![];
        while let Some(next) = z.zoom_in(phone) {
            z = next;
            widths.push(z.drawn_px(phone));
        }
        assert_eq!(widths, [744, 1488, 2976, 5952]);
        // A wide box reaches the drawing limit sooner, and never draws past it.
        let desk = Zoom::default()
            .zoom_in(1280)
            .unwrap()
            .zoom_in(1280)
            .unwrap();
        assert_eq!(desk.drawn_px(1280), 5120);
        let top = desk.zoom_in(1280).unwrap();
        assert_eq!(top.drawn_px(1280), MAX_DRAWN_PX as u32);
        assert_eq!(top.zoom_in(1280), None, "no level that draws nothing wider");
        assert_eq!(top.zoom_out(), Some(desk));
        // A box wider than the limit is drawn as wide as the limit: nothing is lost.
        assert_eq!(Zoom::default().drawn_px(9000), MAX_DRAWN_PX as u32);
        assert_eq!(Layout::new(9000, 2, true, 80).width_px, MAX_DRAWN_PX);
    }

    #[test]
    fn zoomed_in_a_finger_places_an_edge_to_the_millisecond() {
        // The phone's default page: 110 ms in under 300 px, under 3 px per ms.
        let whole = Layout::new(372, 2, true, 110);
        assert!(whole.axis.width_of(10) < 30);
        // At ×8, a millisecond is more than 20 px: a finger a few pixels off stays on it.
        let zoom = Zoom::default()
            .zoom_in(372)
            .and_then(|z| z.zoom_in(372))
            .and_then(|z| z.zoom_in(372))
            .unwrap();
        let l = Layout::new(zoom.drawn_px(372), 2, true, 110);
        assert!(l.axis.width_of(1) >= 20, "{} px per ms", l.axis.width_of(1));
        for t in [0, 30, 45, 110] {
            let x = l.axis.x(t);
            assert_eq!(l.axis.time_at(x - 8), t, "t={t}");
            assert_eq!(l.axis.time_at(x + 8), t, "t={t}");
        }
        assert_eq!(l.axis.ticks()[..3], [0, 5, 10], "ticks every 5 ms");
    }

    #[test]
    fn zooming_keeps_the_middle_instant_in_the_middle() {
        let before = Layout::new(372, 2, true, 110);
        let mid = centre_ms(&before.axis, 0, 372);
        assert_eq!(mid, 45);
        let after = Layout::new(372 * 4, 2, true, 110);
        let left = scroll_to_centre(&after.axis, mid, 372, after.width_px);
        assert_eq!(centre_ms(&after.axis, left, 372), mid);
        // Near either end the box stops at the end instead of showing what is not there.
        assert_eq!(scroll_to_centre(&after.axis, 0, 372, after.width_px), 0);
        assert_eq!(
            scroll_to_centre(&after.axis, 110, 372, after.width_px),
            after.width_px - 372
        );
        assert_eq!(scroll_to_centre(&before.axis, 110, 372, before.width_px), 0);
        // Whatever the scroll, the middle is an instant of the run's axis or past its end.
        assert_eq!(centre_ms(&after.axis, -5000, 372), 0);
    }

    #[test]
    fn labels_take_free_rows_and_stay_inside() {
        assert_eq!(
            place_rows(
                &[(0, 100), (50, 120), (110, 200), (130, 150), (160, 170)],
                2
            ),
            [0, 1, 0, 1, 1]
        );
        // With every row taken, the row that frees up first is reused.
        assert_eq!(place_rows(&[(0, 100), (0, 50), (10, 20)], 2), [0, 1, 1]);
        assert_eq!(fit_label(1200, 100, 96, 1256), 1156);
        assert_eq!(fit_label(20, 100, 96, 1256), 96);
        assert_eq!(text_width_px("33 ≤ 34"), 49);
    }

    #[test]
    fn close_markers_split_the_gap_and_far_ones_keep_their_size() {
        // B's acquire at 31 ms and its debit at 32 ms, 14 px apart: 7 px each way.
        assert_eq!(split_hits(&[500, 514], 10), [(490, 507), (507, 524)]);
        assert_eq!(split_hits(&[514, 500], 10), [(507, 524), (490, 507)]);
        assert_eq!(split_hits(&[100, 300], 10), [(90, 110), (290, 310)]);
        // Two at one instant each keep a half; a third between them keeps nothing.
        assert_eq!(split_hits(&[50, 50], 8), [(42, 50), (50, 58)]);
        assert_eq!(split_hits(&[50, 50, 50], 8), [(42, 50), (50, 50), (50, 58)]);
    }

    #[test]
    fn order_of_sorts_by_key_and_keeps_ties_in_order() {
        assert_eq!(order_of(&[5, 1, 5, 0, 1]), [3, 1, 4, 0, 2]);
        assert!(order_of(&[]).is_empty());
    }

    #[test]
    fn a_bar_takes_what_its_handles_leave() {
        // A pause from 100 to 300 px with handles at both ends and a debit arriving inside.
        let (points, spans) = row_hits(&[100, 300, 200], 8, &[(100, 300)]);
        assert_eq!(points, [(92, 108), (292, 308), (192, 208)]);
        assert_eq!(spans, [vec![(108, 192), (208, 292)]]);
        // Two overlapping bars: the later one (on top) keeps the overlap.
        let (_, spans) = row_hits(&[], 8, &[(0, 100), (50, 150)]);
        assert_eq!(spans, [vec![(0, 50)], vec![(50, 150)]]);
        assert_eq!(free_pieces((0, 10), &[(20, 30)]), [(0, 10)]);
        assert_eq!(free_pieces((0, 10), &[(-5, 30)]), []);
    }

    #[test]
    fn no_two_hit_areas_of_a_row_overlap() {
        // Deterministic pseudo-random rows: points anywhere, bars of any length.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: i32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as i32
        };
        for _ in 0..500 {
            let points: Vec<i32> = (0..next(8)).map(|_| next(300)).collect();
            let spans: Vec<(i32, i32)> = (0..next(4))
                .map(|_| {
                    let a = next(300);
                    (a, a + 1 + next(120))
                })
                .collect();
            let (p, s) = row_hits(&points, 8, &spans);
            let mut all: Vec<(i32, i32)> = p.iter().copied().filter(|h| h.0 < h.1).collect();
            for (pieces, span) in s.iter().zip(&spans) {
                for &piece in pieces {
                    assert!(span.0 <= piece.0 && piece.1 <= span.1 && piece.0 < piece.1);
                    all.push(piece);
                }
            }
            all.sort_unstable();
            for w in all.windows(2) {
                assert!(w[0].1 <= w[1].0, "{w:?} overlap in {points:?} {spans:?}");
            }
            for (h, &x) in p.iter().zip(&points) {
                assert!(h.0 <= x && x <= h.1, "{h:?} misses its centre {x}");
            }
        }
    }
}
