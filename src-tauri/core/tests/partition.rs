//! Property tests of the partitioning rule (SPEC §4).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_core::scheduler::{BatchTracker, partition};
use proptest::prelude::*;

proptest! {
    #[test]
    fn partition_preserves_order_and_isolates_unsafe_calls(safety in proptest::collection::vec(any::<bool>(), 0..64)) {
        let batches = partition(safety.clone());
        // Every call exactly once, in the original order.
        let flat: Vec<usize> = batches.iter().flat_map(|b| b.calls.clone()).collect();
        prop_assert_eq!(flat, (0..safety.len()).collect::<Vec<_>>());
        for (i, b) in batches.iter().enumerate() {
            prop_assert!(!b.calls.is_empty());
            // A batch is safe iff all its calls are; unsafe batches hold one call.
            prop_assert!(b.calls.iter().all(|&c| safety[c] == b.concurrency_safe));
            if !b.concurrency_safe {
                prop_assert_eq!(b.calls.len(), 1);
            }
            // Safe calls are merged maximally: no two safe batches touch.
            if i > 0 {
                prop_assert!(!(b.concurrency_safe && batches[i - 1].concurrency_safe));
            }
        }
        // The streaming executor's incremental numbering agrees.
        let mut tracker = BatchTracker::default();
        for (c, &safe) in safety.iter().enumerate() {
            let n = tracker.assign(safe) as usize;
            prop_assert!(batches[n].calls.contains(&c));
        }
    }
}

#[test]
fn the_seed_example() {
    // [Read, Glob, Edit, Grep, Write]
    let batches = partition([true, true, false, true, false]);
    let calls: Vec<Vec<usize>> = batches.iter().map(|b| b.calls.clone()).collect();
    assert_eq!(calls, vec![vec![0, 1], vec![2], vec![3], vec![4]]);
}
