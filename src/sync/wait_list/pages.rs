//! Where a [`WaitList`](super::WaitList) keeps its entries: a key that
//! stays put for an entry's whole life, and memory that follows the number
//! of entries alive now rather than the most there ever were.
//!
//! A slab (one vector indexed by key) gives the first, not the second: a
//! burst of 100k waiters grows it for good, since a key held by a waiting
//! future cannot be moved to compact it. Here entries live in fixed pages
//! of [`PAGE_LEN`] slots, each its own allocation, found through a table of
//! page pointers; a key is `page * PAGE_LEN + slot`.
//!
//! * A page that becomes empty is freed (one empty page is kept as a
//!   spare, so a list going back and forth across a page boundary does not
//!   allocate each time). After a burst, what stays is the pages that
//!   still hold an entry: at most one page per entry, and one spare.
//! * The table holds one pointer per page. A freed page leaves a hole,
//!   reused first (the lowest one) by the next new page; holes at the end
//!   are cut off and the table's capacity halves once it is a quarter
//!   used. An entry left alive at a high page number keeps the table up
//!   to that page: 8 bytes per [`PAGE_LEN`] entries of the burst.
//! * New entries go into the page most recently found with a free slot
//!   (a list of the pages with room), so entries gather in few pages.
//!
//! tokio has no storage of its own here (its waiters are nodes inside the
//! waiting futures); this keeps tokiwa's list free of `unsafe` at the cost
//! of one page allocation per [`PAGE_LEN`] waiters at growth.

/// Slots per page: a page of semaphore waiters is about 2.5 KiB.
pub(super) const PAGE_LEN: usize = 32;

/// `Page::used` when every slot is taken.
const FULL: u32 = u32::MAX;

/// The table's capacity is not shrunk below this many pages.
const MIN_TABLE: usize = 8;

const _: () = assert!(PAGE_LEN == u32::BITS as usize);

struct Page<E> {
    slots: [Option<E>; PAGE_LEN],
    /// Bit `i` is set while `slots[i]` holds an entry.
    used: u32,
    /// Neighbours in the list of pages with room (pages that are not full).
    prev_open: Option<usize>,
    next_open: Option<usize>,
}

impl<E> Page<E> {
    fn new() -> Box<Page<E>> {
        Box::new(Page {
            slots: std::array::from_fn(|_| None),
            used: 0,
            prev_open: None,
            next_open: None,
        })
    }
}

/// Entries of type `E` under stable `usize` keys (see the module docs).
pub(super) struct Pages<E> {
    /// Pages by number; `None` is a hole left by a freed page.
    table: Vec<Option<Box<Page<E>>>>,
    /// Holes in `table`, and a lower bound on the lowest one.
    holes: usize,
    first_hole: usize,
    /// The first page of the list of pages with room.
    open: Option<usize>,
    /// An empty page kept for the next growth.
    spare: Option<Box<Page<E>>>,
    len: usize,
}

impl<E> Pages<E> {
    pub(super) const fn new() -> Pages<E> {
        Pages {
            table: Vec::new(),
            holes: 0,
            first_hole: 0,
            open: None,
            spare: None,
            len: 0,
        }
    }

    /// Entries stored.
    #[cfg(all(test, not(tokiwa_loom)))]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Stores `entry` and returns its key.
    pub(super) fn insert(&mut self, entry: E) -> usize {
        let number = match self.open {
            Some(number) => number,
            None => self.add_page(),
        };
        let page = self.page_mut(number);
        let slot = page.used.trailing_ones() as usize;
        page.used |= 1 << slot;
        page.slots[slot] = Some(entry);
        let full = page.used == FULL;
        if full {
            self.unlink_open(number);
        }
        self.len += 1;
        number * PAGE_LEN + slot
    }

    /// Takes the entry at `key` out; the key is free for reuse.
    ///
    /// # Panics
    ///
    /// If `key` holds no entry.
    pub(super) fn remove(&mut self, key: usize) -> E {
        let (number, slot) = (key / PAGE_LEN, key % PAGE_LEN);
        let page = self.page_mut(number);
        let entry = page.slots[slot].take().expect("no entry at this key");
        let was_full = page.used == FULL;
        page.used &= !(1 << slot);
        let empty = page.used == 0;
        self.len -= 1;
        if was_full {
            self.link_open(number);
        }
        if empty {
            self.free_page(number);
        }
        entry
    }

    pub(super) fn get(&self, key: usize) -> &E {
        self.table
            .get(key / PAGE_LEN)
            .and_then(Option::as_ref)
            .and_then(|page| page.slots[key % PAGE_LEN].as_ref())
            .expect("no entry at this key")
    }

    pub(super) fn get_mut(&mut self, key: usize) -> &mut E {
        self.table
            .get_mut(key / PAGE_LEN)
            .and_then(Option::as_mut)
            .and_then(|page| page.slots[key % PAGE_LEN].as_mut())
            .expect("no entry at this key")
    }

    /// Pages allocated (the spare included), for the tests.
    #[cfg(all(test, not(tokiwa_loom)))]
    pub(super) fn pages_held(&self) -> usize {
        self.table.len() - self.holes + usize::from(self.spare.is_some())
    }

    fn page_mut(&mut self, number: usize) -> &mut Page<E> {
        self.table[number].as_mut().expect("a page in use")
    }

    /// A new empty page (the spare if there is one) in the lowest hole of
    /// the table, or at its end; it joins the pages with room.
    fn add_page(&mut self) -> usize {
        let page = self.spare.take().unwrap_or_else(Page::new);
        let number = if self.holes == 0 {
            self.table.push(Some(page));
            self.table.len() - 1
        } else {
            // No hole below `first_hole`; there is one at or above it.
            let number = (self.first_hole..self.table.len())
                .find(|&n| self.table[n].is_none())
                .expect("a hole in the table");
            self.table[number] = Some(page);
            self.holes -= 1;
            self.first_hole = number + 1;
            number
        };
        self.link_open(number);
        number
    }

    /// Frees the empty page `number` (or keeps it as the spare), then cuts
    /// the holes off the end of the table and shrinks it once it is mostly
    /// empty: down to twice its length once it is a quarter used, so that
    /// growing and shrinking again cost O(1) per page, amortised.
    fn free_page(&mut self, number: usize) {
        self.unlink_open(number);
        let page = self.table[number].take().expect("a page in use");
        if self.spare.is_none() {
            self.spare = Some(page);
        }
        self.holes += 1;
        self.first_hole = self.first_hole.min(number);
        while let Some(None) = self.table.last() {
            self.table.pop();
            self.holes -= 1;
        }
        self.first_hole = self.first_hole.min(self.table.len());
        let capacity = self.table.capacity();
        if capacity > MIN_TABLE && self.table.len() < capacity / 4 {
            self.table.shrink_to((self.table.len() * 2).max(MIN_TABLE));
        }
    }

    /// Puts page `number` first in the list of pages with room.
    fn link_open(&mut self, number: usize) {
        let next = self.open;
        if let Some(next) = next {
            self.page_mut(next).prev_open = Some(number);
        }
        let page = self.page_mut(number);
        page.prev_open = None;
        page.next_open = next;
        self.open = Some(number);
    }

    /// Takes page `number` out of the list of pages with room.
    fn unlink_open(&mut self, number: usize) {
        let page = self.page_mut(number);
        let (prev, next) = (page.prev_open.take(), page.next_open.take());
        match prev {
            Some(prev) => self.page_mut(prev).next_open = next,
            None => self.open = next,
        }
        if let Some(next) = next {
            self.page_mut(next).prev_open = prev;
        }
    }
}

impl<E> std::fmt::Debug for Pages<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("len", &self.len)
            .field("pages", &(self.table.len() - self.holes))
            .finish()
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::{Pages, PAGE_LEN};

    #[test]
    fn keys_stay_put_and_pages_are_given_back() {
        let mut pages = Pages::new();
        let keys: Vec<usize> = (0..10 * PAGE_LEN).map(|i| pages.insert(i)).collect();
        assert_eq!(pages.pages_held(), 10);
        // Every other entry goes: every page keeps some, nothing moves.
        for &key in keys.iter().step_by(2) {
            assert_eq!(pages.remove(key), key);
        }
        for &key in keys.iter().skip(1).step_by(2) {
            assert_eq!(*pages.get(key), key);
        }
        assert_eq!(pages.pages_held(), 10);
        // New entries fill the free slots before any new page.
        let refill: Vec<usize> = (0..5 * PAGE_LEN).map(|i| pages.insert(i)).collect();
        assert_eq!(pages.pages_held(), 10);
        for key in refill {
            pages.remove(key);
        }
        for &key in keys.iter().skip(1).step_by(2) {
            pages.remove(key);
        }
        assert_eq!(pages.len(), 0);
        // One spare page is all that stays.
        assert_eq!(pages.pages_held(), 1);
        assert!(pages.table.capacity() <= super::MIN_TABLE);
    }

    #[test]
    fn a_survivor_keeps_only_its_page_and_the_table_up_to_it() {
        let mut pages = Pages::new();
        let keys: Vec<usize> = (0..1000 * PAGE_LEN).map(|i| pages.insert(i)).collect();
        let survivor = keys[500 * PAGE_LEN];
        for &key in &keys {
            if key != survivor {
                pages.remove(key);
            }
        }
        assert_eq!(pages.pages_held(), 2, "the survivor's page and the spare");
        assert_eq!(pages.table.len(), 501);
        // Holes below the survivor are reused, lowest first.
        let key = pages.insert(7);
        assert_eq!(key / PAGE_LEN, 500, "the survivor's page has room");
        let more: Vec<usize> = (0..PAGE_LEN).map(|i| pages.insert(i)).collect();
        assert_eq!(*more.last().unwrap() / PAGE_LEN, 0);
        for key in more {
            pages.remove(key);
        }
        pages.remove(key);
        pages.remove(survivor);
        assert_eq!(pages.len(), 0);
        assert!(pages.table.is_empty());
        assert!(pages.table.capacity() <= super::MIN_TABLE);
    }
}
