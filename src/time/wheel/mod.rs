//! A hierarchical timing wheel with exact deadlines.
//!
//! The classic structure (Varghese and Lauck, "Hashed and Hierarchical
//! Timing Wheels", SOSP 1987): six levels of 64 slots over millisecond
//! ticks. A slot of level `l` spans `64^l` ticks, so the wheel covers
//! `64^6` ms (about 2.2 years) past the current tick; timers further out
//! wait in one *far* list. Inserting and removing are O(1): every timer is
//! a node of one slab, chained into its slot's doubly linked list by index
//! (`list.rs`), and a 64-bit occupancy word per level finds the next
//! non-empty slot with one `trailing_zeros`.
//!
//! **Where a timer goes.** The level is the highest 6-bit digit in which its
//! tick differs from `elapsed` (the tick the wheel has processed up to), so
//! every timer of level `l` lies in the current slot of level `l + 1`. It
//! follows that all timers of a level come before all timers of the next
//! level, that within a level the occupied slots are never behind the
//! current position (no wrap-around to reason about), and that the earliest
//! timer of the whole wheel is in the first occupied slot of the lowest
//! occupied level. When `elapsed` reaches a slot of a higher level, its
//! timers cascade down to lower levels.
//!
//! **Exact deadlines.** Ticks only choose slots. Each node keeps its exact
//! deadline in nanoseconds, and a timer fires when the clock has reached
//! that deadline, never merely its tick: timers of the current millisecond
//! that are not due yet stay in the current slot (the *hold* pass of
//! [`Wheel::process`]). Each list also keeps the minimum deadline of its
//! nodes, so [`Wheel::next_deadline`] returns the exact earliest deadline
//! (the worker parks until precisely then, not until a tick boundary).
//! Removing a list's earliest node only marks that minimum stale (it stays
//! a lower bound); the next `next_deadline` rescans the one list it needs,
//! up to a limit, beyond which the stale lower bound is returned: the
//! worker then wakes early at most once for that slot, never late.
//!
//! The wheel is single-threaded; the time driver (`driver.rs`) keeps one
//! per worker behind a mutex.
mod list;

#[cfg(test)]
mod tests;

use list::{Lists, NIL};

/// Nanoseconds per tick (one millisecond).
pub(crate) const NS_PER_TICK: u64 = 1_000_000;

const LEVELS: usize = 6;
const SLOT_BITS: usize = 6;
const SLOTS: usize = 1 << SLOT_BITS;

/// Timers too far ahead for the levels.
const FAR: usize = LEVELS * SLOTS;
/// Timers of the current tick that are not due yet, during a `process`.
const HOLD: usize = FAR + 1;
const NUM_LISTS: usize = HOLD + 1;

/// Names a timer stored in a [`Wheel`].
pub(crate) type Key = u32;

/// A timing wheel of values `T` (the driver stores pointers to timer
/// entries; the unit tests store plain numbers).
#[derive(Debug)]
pub(crate) struct Wheel<T> {
    lists: Lists<T>,
    /// Bit `s` of `occupied[l]`: slot `s` of level `l` is non-empty.
    occupied: [u64; LEVELS],
    /// Per list: the minimum deadline of its nodes (`u64::MAX` when empty).
    /// Exact unless `stale`, and a lower bound always.
    min: Box<[u64]>,
    stale: Box<[bool]>,
    /// The tick processed up to: every stored timer files at or after it.
    elapsed: u64,
}

impl<T> Wheel<T> {
    pub(crate) fn new() -> Wheel<T> {
        Wheel {
            lists: Lists::new(NUM_LISTS),
            occupied: [0; LEVELS],
            min: vec![u64::MAX; NUM_LISTS].into_boxed_slice(),
            stale: vec![false; NUM_LISTS].into_boxed_slice(),
            elapsed: 0,
        }
    }

    /// Number of stored timers.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lists.len()
    }

    /// Stores a timer due at `deadline` (nanoseconds). A deadline already
    /// passed fires on the next [`Wheel::process`].
    pub(crate) fn insert(&mut self, deadline: u64, value: T) -> Key {
        let key = self.lists.alloc(deadline, value);
        self.file(key);
        key
    }

    /// Removes a stored timer and returns its value.
    pub(crate) fn remove(&mut self, key: Key) -> T {
        self.unfile(key);
        self.lists.free(key).value
    }

    /// Moves a stored timer to a new deadline.
    pub(crate) fn reset(&mut self, key: Key, deadline: u64) {
        self.unfile(key);
        self.lists.node_mut(key).deadline = deadline;
        self.file(key);
    }

    /// Removes every timer whose deadline is at or before `now` and hands
    /// it to `fire` (in no particular order), cascading the others.
    pub(crate) fn process(&mut self, now: u64, mut fire: impl FnMut(T, u64)) {
        let now_tick = now / NS_PER_TICK;
        while let Some((list, start)) = self.next_expiring() {
            if start > now_tick {
                break;
            }
            // Every timer is in this list or files after `start`.
            self.elapsed = self.elapsed.max(start);
            let mut key = self.lists.take(list);
            self.emptied(list);
            while key != NIL {
                let next = self.lists.detach_first(key);
                let deadline = self.lists.node(key).deadline;
                if deadline <= now {
                    fire(self.lists.free(key).value, deadline);
                } else if deadline / NS_PER_TICK <= now_tick {
                    // Due later in the current tick: back into its slot
                    // once `elapsed` is final, not now (that slot would
                    // come round again in this loop).
                    self.link(HOLD, key, deadline);
                } else {
                    // Files at a lower level than `list`: terminates.
                    self.file(key);
                }
                key = next;
            }
        }
        self.elapsed = self.elapsed.max(now_tick);
        let mut key = self.lists.take(HOLD);
        self.emptied(HOLD);
        while key != NIL {
            let next = self.lists.detach_first(key);
            self.file(key);
            key = next;
        }
    }

    /// The earliest deadline stored, or a lower bound of it when the list
    /// holding it is stale and longer than `scan_limit`. `None`: no timer
    /// that can ever fire (deadline `u64::MAX` means never).
    pub(crate) fn next_deadline(&mut self, scan_limit: usize) -> Option<u64> {
        // Wheel timers all come before far ones.
        let list = match self.first_occupied() {
            Some((level, slot)) => level * SLOTS + slot,
            None if !self.lists.is_empty(FAR) => FAR,
            None => return None,
        };
        if self.stale[list] {
            self.rescan(list, scan_limit);
        }
        let min = self.min[list];
        (min != u64::MAX).then_some(min)
    }

    /// Removes every timer (shutdown), handing each to `f`.
    pub(crate) fn drain(&mut self, mut f: impl FnMut(T, u64)) {
        for list in 0..NUM_LISTS {
            let mut key = self.lists.take(list);
            self.emptied(list);
            while key != NIL {
                let next = self.lists.detach_first(key);
                let node = self.lists.free(key);
                f(node.value, node.deadline);
                key = next;
            }
        }
    }

    /// Links an unlinked node into the list its deadline belongs to.
    fn file(&mut self, key: Key) {
        let deadline = self.lists.node(key).deadline;
        // A deadline behind `elapsed` (possible when the clock was read
        // before another thread processed) files in the current slot.
        let tick = (deadline / NS_PER_TICK).max(self.elapsed);
        let level = level_for(self.elapsed, tick);
        let list = if level < LEVELS {
            let slot = slot_for(tick, level);
            self.occupied[level] |= 1 << slot;
            level * SLOTS + slot
        } else {
            FAR
        };
        self.link(list, key, deadline);
    }

    fn link(&mut self, list: usize, key: Key, deadline: u64) {
        if self.lists.is_empty(list) {
            self.min[list] = deadline;
            self.stale[list] = false;
        } else if deadline < self.min[list] {
            self.min[list] = deadline;
        }
        self.lists.push_back(list, key);
    }

    fn unfile(&mut self, key: Key) {
        let list = self.lists.list_of(key);
        let deadline = self.lists.node(key).deadline;
        self.lists.unlink(key);
        if self.lists.is_empty(list) {
            self.emptied(list);
        } else if deadline <= self.min[list] {
            // The minimum may have risen; it stays a lower bound.
            self.stale[list] = true;
        }
    }

    /// Bookkeeping for a list that became empty.
    fn emptied(&mut self, list: usize) {
        self.min[list] = u64::MAX;
        self.stale[list] = false;
        if list < FAR {
            self.occupied[list / SLOTS] &= !(1 << (list % SLOTS));
        }
    }

    fn rescan(&mut self, list: usize, scan_limit: usize) {
        let mut min = u64::MAX;
        let mut key = self.lists.head(list);
        let mut scanned = 0;
        while key != NIL {
            if scanned == scan_limit {
                return;
            }
            min = min.min(self.lists.node(key).deadline);
            key = self.lists.next(key);
            scanned += 1;
        }
        self.min[list] = min;
        self.stale[list] = false;
    }

    /// The first occupied slot of the lowest occupied level.
    fn first_occupied(&self) -> Option<(usize, usize)> {
        let level = self.occupied.iter().position(|&bits| bits != 0)?;
        let bits = self.occupied[level];
        // Slots behind the current position are empty (see the module
        // docs), so the lowest set bit is the next slot in time.
        debug_assert_eq!(
            bits & ((1u64 << slot_for(self.elapsed, level)) - 1),
            0,
            "occupied slot behind the wheel's position"
        );
        Some((level, bits.trailing_zeros() as usize))
    }

    /// The list to process next and the tick at which it starts.
    fn next_expiring(&self) -> Option<(usize, u64)> {
        let wheel = self.first_occupied().map(|(level, slot)| {
            let level_start = self.elapsed & !(level_span(level) - 1);
            let start = level_start + ((slot as u64) << (SLOT_BITS * level));
            (level * SLOTS + slot, start)
        });
        // The far list is due when `elapsed` can reach the top-level span
        // of its earliest timer (its minimum is a lower bound, so at worst
        // early, which only re-files the far timers).
        let far = (!self.lists.is_empty(FAR)).then(|| {
            let tick = self.min[FAR] / NS_PER_TICK;
            (FAR, tick & !(level_span(LEVELS - 1) - 1))
        });
        match (wheel, far) {
            (Some(w), Some(f)) => Some(if f.1 < w.1 { f } else { w }),
            (w, f) => w.or(f),
        }
    }
}

/// Ticks spanned by all the slots of `level`.
fn level_span(level: usize) -> u64 {
    1 << (SLOT_BITS * (level + 1))
}

/// The level a timer due at `tick` files at: the highest 6-bit digit in
/// which it differs from `elapsed` (`LEVELS` or more: the far list).
fn level_for(elapsed: u64, tick: u64) -> usize {
    let masked = (elapsed ^ tick) | (SLOTS as u64 - 1);
    let highest_bit = 63 - masked.leading_zeros() as usize;
    highest_bit / SLOT_BITS
}

fn slot_for(tick: u64, level: usize) -> usize {
    ((tick >> (SLOT_BITS * level)) & (SLOTS as u64 - 1)) as usize
}
