//! Write throttling for streamed replies: a few writes a second at most, plus a final one.
//!
//! A 30,000-token answer at 500 tok/s would otherwise serialize the conversation thousands of
//! times. The throttle only decides *when*; the store performs the write. Time is an argument so
//! the schedule is tested exactly.

/// What the caller should do after a change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WriteDecision {
    /// Write now.
    Now,
    /// A write is already owed; make sure a timer fires at this time (ms), then call `due`.
    At(f64),
}

#[derive(Debug, Clone)]
pub struct WriteThrottle {
    min_interval_ms: f64,
    last_write_ms: Option<f64>,
    pending_since: Option<f64>,
}

impl WriteThrottle {
    pub fn new(min_interval_ms: f64) -> Self {
        WriteThrottle {
            min_interval_ms,
            last_write_ms: None,
            pending_since: None,
        }
    }

    /// Something changed at `now_ms`.
    pub fn changed(&mut self, now_ms: f64) -> WriteDecision {
        match self.last_write_ms {
            Some(last) if now_ms - last < self.min_interval_ms => {
                self.pending_since.get_or_insert(now_ms);
                WriteDecision::At(last + self.min_interval_ms)
            }
            _ => {
                self.wrote(now_ms);
                WriteDecision::Now
            }
        }
    }

    /// A timer fired: is a write owed? If so it is considered done at `now_ms`.
    pub fn due(&mut self, now_ms: f64) -> bool {
        if self.pending_since.is_some() {
            self.wrote(now_ms);
            true
        } else {
            false
        }
    }

    /// A write happened for another reason (e.g. the final write): nothing is owed any more.
    pub fn wrote(&mut self, now_ms: f64) {
        self.last_write_ms = Some(now_ms);
        self.pending_since = None;
    }

    pub fn is_pending(&self) -> bool {
        self.pending_since.is_some()
    }

    /// Adapt the interval to what one write costs. Each write stores the whole conversation, so
    /// a fixed interval makes the bytes written grow with the square of the answer's length;
    /// scaling the interval with the size caps the write rate at `bytes_per_second`, never
    /// below the base interval nor above `max_ms` (what a crash could lose).
    pub fn scale_to_size(
        &mut self,
        base_ms: f64,
        size_bytes: usize,
        bytes_per_second: f64,
        max_ms: f64,
    ) {
        let by_size = size_bytes as f64 / bytes_per_second * 1000.0;
        self.min_interval_ms = by_size.clamp(base_ms, max_ms);
    }

    pub fn interval_ms(&self) -> f64 {
        self.min_interval_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_one_write_per_interval_while_streaming() {
        let mut t = WriteThrottle::new(250.0);
        let mut writes = 0;
        let mut timer: Option<f64> = None;
        // 500 tokens a second for 10 seconds: one change every 2 ms.
        let mut now = 0.0;
        while now < 10_000.0 {
            if let Some(at) = timer {
                if now >= at {
                    timer = None;
                    if t.due(now) {
                        writes += 1;
                    }
                }
            }
            match t.changed(now) {
                WriteDecision::Now => writes += 1,
                WriteDecision::At(at) => {
                    timer.get_or_insert(at);
                }
            }
            now += 2.0;
        }
        assert!(t.is_pending());
        // 10 s at one write per 250 ms is 40 writes, and never more.
        assert!((39..=41).contains(&writes), "{writes} writes");
    }

    #[test]
    fn interval_scales_with_size_within_bounds() {
        let mut t = WriteThrottle::new(250.0);
        t.scale_to_size(250.0, 1_000, 100_000.0, 2_000.0);
        assert_eq!(t.interval_ms(), 250.0);
        t.scale_to_size(250.0, 50_000, 100_000.0, 2_000.0);
        assert_eq!(t.interval_ms(), 500.0);
        t.scale_to_size(250.0, 10_000_000, 100_000.0, 2_000.0);
        assert_eq!(t.interval_ms(), 2_000.0);
        // Bytes written over a 30,000-token answer stay linear: a 240 KB conversation is
        // written about every 2 s instead of 4 times a second.
        assert_eq!(t.changed(0.0), WriteDecision::Now);
        assert_eq!(t.changed(10.0), WriteDecision::At(2_000.0));
    }

    #[test]
    fn first_change_writes_immediately_and_final_write_clears_debt() {
        let mut t = WriteThrottle::new(250.0);
        assert_eq!(t.changed(0.0), WriteDecision::Now);
        assert_eq!(t.changed(10.0), WriteDecision::At(250.0));
        t.wrote(20.0);
        assert!(!t.due(250.0));
        assert_eq!(t.changed(300.0), WriteDecision::Now);
    }
}
