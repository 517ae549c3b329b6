//! The wheel's storage: timers in one slab, chained into doubly linked lists
//! by slab index.
//!
//! Every list (a wheel slot, the far list, the hold list of a `process`
//! pass) is a head and a tail index into the slab; each node carries its
//! neighbours and the id of the list it is in, so removing a node from
//! whatever list holds it is O(1), and so is appending. Indices are `u32`
//! to keep a node at 32 bytes: a slot is scanned node by node when its
//! earliest deadline is recomputed, and small nodes in one contiguous slab
//! keep that scan in cache.
use slab::Slab;

/// No node: the end of a list.
pub(super) const NIL: u32 = u32::MAX;

/// One timer.
#[derive(Debug)]
pub(super) struct Node<T> {
    /// The exact deadline, in nanoseconds on the wheel's clock.
    pub(super) deadline: u64,
    prev: u32,
    next: u32,
    /// The list the node is in.
    list: u16,
    pub(super) value: T,
}

/// The nodes and the heads of `n` lists.
#[derive(Debug)]
pub(super) struct Lists<T> {
    nodes: Slab<Node<T>>,
    head: Box<[u32]>,
    tail: Box<[u32]>,
}

impl<T> Lists<T> {
    pub(super) fn new(lists: usize) -> Lists<T> {
        assert!(lists <= usize::from(u16::MAX));
        Lists {
            nodes: Slab::new(),
            head: vec![NIL; lists].into_boxed_slice(),
            tail: vec![NIL; lists].into_boxed_slice(),
        }
    }

    /// Stores a node in no list yet; [`Lists::push_back`] files it.
    pub(super) fn alloc(&mut self, deadline: u64, value: T) -> u32 {
        let key = self.nodes.insert(Node {
            deadline,
            prev: NIL,
            next: NIL,
            list: u16::MAX,
            value,
        });
        u32::try_from(key).expect("more than 2^32 timers in one wheel")
    }

    /// Frees a node that is in no list.
    pub(super) fn free(&mut self, key: u32) -> Node<T> {
        let node = self.nodes.remove(key as usize);
        debug_assert_eq!(node.list, u16::MAX, "freeing a linked node");
        node
    }

    pub(super) fn node(&self, key: u32) -> &Node<T> {
        &self.nodes[key as usize]
    }

    pub(super) fn node_mut(&mut self, key: u32) -> &mut Node<T> {
        &mut self.nodes[key as usize]
    }

    /// The list `key` is in.
    pub(super) fn list_of(&self, key: u32) -> usize {
        usize::from(self.nodes[key as usize].list)
    }

    pub(super) fn is_empty(&self, list: usize) -> bool {
        self.head[list] == NIL
    }

    pub(super) fn head(&self, list: usize) -> u32 {
        self.head[list]
    }

    /// The node after `key` in its list (or in a detached chain).
    pub(super) fn next(&self, key: u32) -> u32 {
        self.nodes[key as usize].next
    }

    /// Number of stored timers.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Appends an unlinked node to `list`.
    pub(super) fn push_back(&mut self, list: usize, key: u32) {
        let tail = self.tail[list];
        {
            let node = &mut self.nodes[key as usize];
            debug_assert_eq!(node.list, u16::MAX, "node already linked");
            node.prev = tail;
            node.next = NIL;
            node.list = list as u16;
        }
        if tail == NIL {
            self.head[list] = key;
        } else {
            self.nodes[tail as usize].next = key;
        }
        self.tail[list] = key;
    }

    /// Takes `key` out of its list, leaving it stored.
    pub(super) fn unlink(&mut self, key: u32) {
        let (prev, next, list) = {
            let node = &mut self.nodes[key as usize];
            let links = (node.prev, node.next, usize::from(node.list));
            node.prev = NIL;
            node.next = NIL;
            node.list = u16::MAX;
            links
        };
        debug_assert_ne!(list, usize::from(u16::MAX), "unlinking an unlinked node");
        if prev == NIL {
            self.head[list] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail[list] = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    /// Empties `list` and returns its first node. The nodes stay chained
    /// (a detached chain): the caller walks it with
    /// [`Lists::detach_first`], which unlinks each node before it is
    /// re-filed or freed.
    pub(super) fn take(&mut self, list: usize) -> u32 {
        self.tail[list] = NIL;
        std::mem::replace(&mut self.head[list], NIL)
    }

    /// Unlinks the first node of a detached chain and returns the next one.
    pub(super) fn detach_first(&mut self, key: u32) -> u32 {
        let node = &mut self.nodes[key as usize];
        let next = node.next;
        node.prev = NIL;
        node.next = NIL;
        node.list = u16::MAX;
        next
    }
}
