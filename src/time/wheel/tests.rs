//! The wheel against a model (a map of live deadlines), under random
//! inserts, removes, resets and clock jumps from microseconds to decades.
use super::{Key, Wheel, NS_PER_TICK};
use std::collections::HashMap;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A delay whose magnitude is itself random: sub-millisecond to years.
    fn delay(&mut self) -> u64 {
        const MAGNITUDES: [u64; 8] = [
            1_000,                          // 1 µs
            NS_PER_TICK,                    // 1 ms
            64 * NS_PER_TICK,               // level 1
            4_096 * NS_PER_TICK,            // level 2
            3_600_000 * NS_PER_TICK,        // an hour
            86_400_000 * NS_PER_TICK,       // a day
            800 * 86_400_000 * NS_PER_TICK, // past the wheel's range
            40 * 365 * 86_400_000 * NS_PER_TICK,
        ];
        let m = MAGNITUDES[self.below(MAGNITUDES.len() as u64) as usize];
        self.below(2 * m + 1)
    }
}

struct Harness {
    wheel: Wheel<u64>,
    live: HashMap<u64, (Key, u64)>,
    next_id: u64,
    now: u64,
}

impl Harness {
    fn new() -> Harness {
        Harness {
            wheel: Wheel::new(),
            live: HashMap::new(),
            next_id: 0,
            now: 0,
        }
    }

    fn insert(&mut self, deadline: u64) {
        let id = self.next_id;
        self.next_id += 1;
        let key = self.wheel.insert(deadline, id);
        self.live.insert(id, (key, deadline));
    }

    fn any_live(&mut self, rng: &mut Rng) -> Option<u64> {
        if self.live.is_empty() {
            return None;
        }
        // HashMap order is random per process; pick by sorted rank so the
        // run is reproducible.
        let mut ids: Vec<u64> = self.live.keys().copied().collect();
        ids.sort_unstable();
        Some(ids[rng.below(ids.len() as u64) as usize])
    }

    fn advance(&mut self, now: u64) {
        assert!(now >= self.now);
        self.now = now;
        let mut fired = Vec::new();
        self.wheel
            .process(now, |id, deadline| fired.push((id, deadline)));
        for (id, deadline) in fired {
            let (_, expected) = self.live.remove(&id).expect("fired twice or unknown");
            assert_eq!(deadline, expected);
            assert!(deadline <= now, "fired early: {deadline} > {now}");
        }
        for (id, &(_, deadline)) in &self.live {
            assert!(
                deadline > now,
                "timer {id} due at {deadline} missed at {now}"
            );
        }
        self.check_next();
    }

    fn check_next(&mut self) {
        let exact = self
            .live
            .values()
            .map(|&(_, d)| d)
            .filter(|&d| d != u64::MAX)
            .min();
        let bound = self.wheel.next_deadline(2);
        if let (Some(bound), Some(exact)) = (bound, exact) {
            assert!(bound <= exact, "lower bound {bound} above {exact}");
        }
        // A stale bound may remain with no timer due (never-firing ones
        // left): an early wakeup, never a missed one.
        assert!(bound.is_some() || exact.is_none());
        assert_eq!(self.wheel.next_deadline(usize::MAX), exact);
        assert_eq!(self.wheel.len(), self.live.len());
    }
}

#[test]
fn random_operations_match_the_model() {
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut h = Harness::new();
        for _ in 0..2_000 {
            match rng.below(10) {
                0..=3 => {
                    let d = h.now.saturating_add(rng.delay());
                    h.insert(d);
                }
                4 => {
                    if let Some(id) = h.any_live(&mut rng) {
                        let (key, _) = h.live.remove(&id).unwrap();
                        assert_eq!(h.wheel.remove(key), id);
                        h.check_next();
                    }
                }
                5 => {
                    if let Some(id) = h.any_live(&mut rng) {
                        let d = h.now.saturating_add(rng.delay());
                        let entry = h.live.get_mut(&id).unwrap();
                        h.wheel.reset(entry.0, d);
                        entry.1 = d;
                        h.check_next();
                    }
                }
                6 => {
                    // Jump straight to the next deadline, as a paused clock
                    // auto-advances.
                    if let Some(d) = h.wheel.next_deadline(usize::MAX) {
                        h.advance(d);
                    }
                }
                _ => {
                    let now = h.now.saturating_add(rng.delay()).min(u64::MAX - 1);
                    h.advance(now);
                }
            }
        }
        // Everything that can fire fires.
        h.advance(u64::MAX - 1);
        assert!(h.live.values().all(|&(_, d)| d == u64::MAX));
    }
}

#[test]
fn fires_within_the_tick_only_when_due() {
    let mut h = Harness::new();
    h.insert(1_500_000);
    h.insert(1_200_000);
    h.advance(1_100_000);
    assert_eq!(h.live.len(), 2);
    assert_eq!(h.wheel.next_deadline(usize::MAX), Some(1_200_000));
    h.advance(1_200_000);
    assert_eq!(h.live.len(), 1);
    h.advance(1_499_999);
    assert_eq!(h.live.len(), 1);
    h.advance(1_500_000);
    assert!(h.live.is_empty());
}

#[test]
fn deadline_behind_elapsed_still_fires() {
    let mut h = Harness::new();
    h.advance(10 * NS_PER_TICK);
    // Read "now" before another thread processed: files behind `elapsed`.
    h.insert(9 * NS_PER_TICK + 1);
    assert_eq!(h.wheel.next_deadline(usize::MAX), Some(9 * NS_PER_TICK + 1));
    h.advance(10 * NS_PER_TICK);
    assert!(h.live.is_empty());
}

#[test]
fn far_timers_survive_long_jumps() {
    let mut h = Harness::new();
    let year = 365 * 86_400_000 * NS_PER_TICK;
    h.insert(10 * year);
    h.insert(10 * year + 1);
    h.insert(30 * year);
    h.insert(u64::MAX);
    h.advance(year);
    assert_eq!(h.wheel.next_deadline(usize::MAX), Some(10 * year));
    h.advance(10 * year);
    assert_eq!(h.live.len(), 3);
    h.advance(10 * year + 1);
    h.advance(29 * year);
    assert_eq!(h.live.len(), 2);
    h.advance(30 * year);
    assert_eq!(h.live.len(), 1);
    assert_eq!(h.wheel.next_deadline(usize::MAX), None);
}

#[test]
fn many_timers_in_one_tick() {
    let mut h = Harness::new();
    for i in 0..1_000u64 {
        h.insert(5 * NS_PER_TICK + (i * 7919) % NS_PER_TICK);
    }
    let mut now = 5 * NS_PER_TICK;
    while !h.live.is_empty() {
        now = h.wheel.next_deadline(usize::MAX).unwrap();
        h.advance(now);
    }
    assert!(now < 6 * NS_PER_TICK);
}
