//! Partitioning (SPEC §4): which calls of one assistant message may run
//! side by side.
//!
//! Consecutive concurrency-safe calls form one batch; every other call is
//! a batch of its own. A call whose tool is unknown or whose input does not
//! match the schema is not safe. `[Read, Glob, Edit, Grep, Write]` →
//! `[Read, Glob]`, `[Edit]`, `[Grep]`, `[Write]`.
//!
//! The streaming executor applies the same rule incrementally, one block at
//! a time ([`BatchTracker`]), so batch numbers in `tool_started` events are
//! the indices of these batches.

use crate::registry::ToolPool;
use crate::runtime::ToolUseBlock;

/// One batch: indices into the message's tool_use blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Whether the calls may run concurrently.
    pub concurrency_safe: bool,
    /// The calls, by index in the message, in order.
    pub calls: Vec<usize>,
}

/// Partitions calls given whether each is concurrency-safe.
pub fn partition(safety: impl IntoIterator<Item = bool>) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (index, safe) in safety.into_iter().enumerate() {
        match batches.last_mut() {
            Some(last) if safe && last.concurrency_safe => last.calls.push(index),
            _ => batches.push(Batch {
                concurrency_safe: safe,
                calls: vec![index],
            }),
        }
    }
    batches
}

/// Whether a block is a concurrency-safe call: its tool exists, its input
/// matches the schema, and the tool says so for that input.
pub fn is_concurrency_safe(pool: &ToolPool, block: &ToolUseBlock) -> bool {
    let Some(index) = pool.lookup(&block.name) else {
        return false;
    };
    let schema_ok = pool
        .validator(index)
        .is_some_and(|v| v.validate(&block.name, &block.input).is_ok());
    schema_ok
        && pool
            .get(index)
            .is_some_and(|t| t.is_concurrency_safe(&block.input))
}

/// Partitions the tool_use blocks of one message.
pub fn partition_calls(pool: &ToolPool, blocks: &[ToolUseBlock]) -> Vec<Batch> {
    partition(blocks.iter().map(|b| is_concurrency_safe(pool, b)))
}

/// Assigns batch numbers to calls as they arrive, by the rule above.
#[derive(Debug, Default, Clone)]
pub struct BatchTracker {
    batches: u32,
    last_safe: Option<bool>,
}

impl BatchTracker {
    /// The batch number of the next call.
    pub fn assign(&mut self, safe: bool) -> u32 {
        if !(safe && self.last_safe == Some(true)) {
            self.batches += 1;
        }
        self.last_safe = Some(safe);
        self.batches - 1
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn tracker_numbers_batches_like_partition() {
        let safety = [true, true, false, true, false, false, true, true, true];
        let mut tracker = BatchTracker::default();
        let numbers: Vec<u32> = safety.iter().map(|s| tracker.assign(*s)).collect();
        let batches = partition(safety);
        for (b, batch) in batches.iter().enumerate() {
            for &i in &batch.calls {
                assert_eq!(numbers[i] as usize, b);
            }
        }
    }
}
