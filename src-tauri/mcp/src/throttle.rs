//! A rate limit for one call's progress reports: at most one per
//! [`PROGRESS_INTERVAL`] (20 a second), and the newest value is never lost —
//! a value that arrives inside a window is held and goes out when the window
//! ends or the call finishes, replacing any older held value.
//!
//! A server may send progress notifications as fast as it can write them
//! (the fault test sends 1,000,000); each used to become one stored event.
//! The throttle knows nothing of the payload: it holds a `T` and hands it to
//! a sink, so the event type can change without touching it. Time is tokio's
//! (paused-time tests drive the windows).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// The shortest time between two reports of one call (≤ 20 per second).
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

struct State<T> {
    /// When the last value went out.
    last: Option<Instant>,
    /// The newest value not yet sent.
    held: Option<T>,
    /// A task waits for the current window to end.
    timer: bool,
    /// The call finished: nothing more goes out.
    closed: bool,
}

struct Inner<T> {
    state: Mutex<State<T>>,
    interval: Duration,
    sink: Box<dyn Fn(T) + Send + Sync>,
}

/// One call's progress throttle; clones share it.
pub struct Throttle<T>(Arc<Inner<T>>);

impl<T> Clone for Throttle<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T> std::fmt::Debug for Throttle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Throttle")
            .field("interval", &self.0.interval)
            .finish_non_exhaustive()
    }
}

impl<T: Send + 'static> Throttle<T> {
    /// A throttle that passes at most one value per `interval` to `sink`.
    pub fn new(interval: Duration, sink: impl Fn(T) + Send + Sync + 'static) -> Self {
        Self(Arc::new(Inner {
            state: Mutex::new(State {
                last: None,
                held: None,
                timer: false,
                closed: false,
            }),
            interval,
            sink: Box::new(sink),
        }))
    }

    /// Offers a value: sent now when the last one went out at least an
    /// interval ago, otherwise held (replacing an older held one) until the
    /// window ends.
    pub fn offer(&self, value: T) {
        let inner = &self.0;
        // Values go to the sink under the lock, so they leave in the order
        // they came (the window timer and `finish` run on other tasks).
        let mut s = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.closed {
            return;
        }
        let now = Instant::now();
        if s.last.is_none_or(|t| now >= t + inner.interval) {
            s.last = Some(now);
            s.held = None;
            (inner.sink)(value);
            return;
        }
        s.held = Some(value);
        if !s.timer {
            self.arm(&mut s, now);
        }
    }

    /// Starts a task that sends the held value when the window that began
    /// with the last sent value ends.
    fn arm(&self, s: &mut State<T>, now: Instant) {
        let due = s.last.map_or(now, |t| t + self.0.interval);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                s.timer = true;
                let this = self.clone();
                runtime.spawn(async move {
                    tokio::time::sleep_until(due).await;
                    this.window_ended();
                });
            }
            // No runtime to wait on (not the case in a session): nothing is
            // held back rather than something lost.
            Err(_) => {
                if let Some(v) = s.held.take() {
                    s.last = Some(now);
                    (self.0.sink)(v);
                }
            }
        }
    }

    fn window_ended(&self) {
        let inner = &self.0;
        let mut s = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.timer = false;
        if s.closed || s.held.is_none() {
            return;
        }
        let now = Instant::now();
        // A value sent meanwhile by `offer` started a new window: this
        // timer is stale and waits for that one's end instead.
        if s.last.is_some_and(|t| now < t + inner.interval) {
            self.arm(&mut s, now);
            return;
        }
        if let Some(v) = s.held.take() {
            s.last = Some(now);
            (inner.sink)(v);
        }
    }

    /// The call is over: a held value goes out now, later offers are
    /// dropped.
    pub fn finish(&self) {
        let inner = &self.0;
        let mut s = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.closed {
            return;
        }
        s.closed = true;
        if let Some(v) = s.held.take() {
            (inner.sink)(v);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// What a recording sink saw: each value with when it was sent.
    type Seen = Arc<Mutex<Vec<(u32, Instant)>>>;

    fn recording() -> (Throttle<u32>, Seen) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let t = Throttle::new(PROGRESS_INTERVAL, move |v| {
            sink.lock().unwrap().push((v, Instant::now()));
        });
        (t, seen)
    }

    fn values(seen: &Mutex<Vec<(u32, Instant)>>) -> Vec<u32> {
        seen.lock().unwrap().iter().map(|(v, _)| *v).collect()
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_gives_the_first_value_now_and_the_last_when_the_window_ends() {
        let (t, seen) = recording();
        for v in 1..=10_000 {
            t.offer(v);
        }
        assert_eq!(values(&seen), [1]);
        // Just past the window's end (its timer runs first).
        tokio::time::sleep(PROGRESS_INTERVAL + Duration::from_millis(1)).await;
        assert_eq!(values(&seen), [1, 10_000]);
        // Nothing further is held.
        tokio::time::sleep(PROGRESS_INTERVAL * 4).await;
        assert_eq!(values(&seen), [1, 10_000]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_steady_stream_is_cut_to_twenty_a_second_and_the_last_is_kept() {
        let (t, seen) = recording();
        // 1,000 values a second for 10 s.
        for v in 1..=10_000 {
            t.offer(v);
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        t.finish();
        let seen = seen.lock().unwrap().clone();
        assert!(seen.len() <= 10 * 20 + 2, "{} reports", seen.len());
        assert!(seen.len() >= 10 * 20 - 2, "{} reports", seen.len());
        assert_eq!(seen.last().unwrap().0, 10_000);
        for pair in seen.windows(2) {
            assert!(pair[0].0 < pair[1].0, "in order");
            assert!(pair[1].1 - pair[0].1 >= PROGRESS_INTERVAL, "{pair:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn finishing_sends_the_held_value_and_drops_later_ones() {
        let (t, seen) = recording();
        t.offer(1);
        t.offer(2);
        t.offer(3);
        t.finish();
        assert_eq!(values(&seen), [1, 3]);
        t.offer(4);
        tokio::time::sleep(PROGRESS_INTERVAL * 2).await;
        assert_eq!(values(&seen), [1, 3], "the window timer sends nothing");
    }

    #[tokio::test(start_paused = true)]
    async fn a_late_timer_of_an_earlier_window_sends_nothing_early() {
        // Under load a window's timer can run after `offer` already sent a
        // value and started a new window (the fault test saw 23 events a
        // second). The late timer must wait for the new window's end.
        let (t, seen) = recording();
        t.offer(1);
        tokio::time::sleep(Duration::from_millis(60)).await;
        t.offer(2);
        tokio::time::sleep(Duration::from_millis(5)).await;
        t.offer(3);
        // What a timer left over from the first window would do now:
        t.window_ended();
        assert_eq!(values(&seen), [1, 2], "nothing 5 ms after the last");
        tokio::time::sleep(PROGRESS_INTERVAL).await;
        assert_eq!(values(&seen), [1, 2, 3]);
        let seen = seen.lock().unwrap().clone();
        assert!(seen[2].1 - seen[1].1 >= PROGRESS_INTERVAL);
    }

    #[tokio::test(start_paused = true)]
    async fn slow_values_all_go_out_at_once() {
        let (t, seen) = recording();
        for v in 1..=5 {
            t.offer(v);
            tokio::time::sleep(PROGRESS_INTERVAL * 2).await;
        }
        assert_eq!(values(&seen), [1, 2, 3, 4, 5]);
    }
}
