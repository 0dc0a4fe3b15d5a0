//! Retries with exponential backoff and jitter.

use std::time::Duration;

/// When and how often a failed model request is sent again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The delay before the first retry.
    pub base_delay: Duration,
    /// The longest delay (also caps `retry-after`).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 8,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(32),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The delay before retry `attempt` (from 1): the server's
    /// `retry-after` when given (capped at `max_delay`), else
    /// `base · 2^(attempt-1)` capped at `max_delay`, plus up to 25 % random
    /// jitter so that many clients do not retry in lockstep.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let exp = 2u32.saturating_pow(attempt.saturating_sub(1).min(20));
        let base = self.base_delay.saturating_mul(exp).min(self.max_delay);
        let jitter_ms = u64::try_from(base.as_millis() / 4).unwrap_or(0);
        let jitter = if jitter_ms == 0 {
            0
        } else {
            rand::random_range(0..=jitter_ms)
        };
        base + Duration::from_millis(jitter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_bounded_jitter_and_honours_retry_after() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        for _ in 0..50 {
            let d1 = p.delay(1, None).as_millis();
            let d3 = p.delay(3, None).as_millis();
            let d9 = p.delay(9, None).as_millis();
            assert!((100..=125).contains(&d1), "{d1}");
            assert!((400..=500).contains(&d3), "{d3}");
            assert!((1000..=1250).contains(&d9), "{d9}");
        }
        assert_eq!(
            p.delay(1, Some(Duration::from_millis(300))),
            Duration::from_millis(300)
        );
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(90))),
            Duration::from_secs(1)
        );
    }
}
