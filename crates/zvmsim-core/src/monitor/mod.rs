//! Statistics as the Performance Toolkit keeps them: typed counters owned by each component,
//! levels and tallies, and the typed interval rows and summary built from them.

pub mod counters;
pub mod rows;
pub mod steady;
pub mod summary;

/// A time-weighted level: the integral of a value over time within the current interval.
#[derive(Debug, Clone, Default)]
pub struct Level {
    value: f64,
    last_t: u64,
    area: f64,
    start: u64,
}

impl Level {
    pub fn set(&mut self, t: u64, v: f64) {
        self.area += self.value * (t - self.last_t) as f64;
        self.last_t = t;
        self.value = v;
    }
    pub fn value(&self) -> f64 {
        self.value
    }
    /// Time-weighted mean since the interval started; starts the next interval at `t`.
    pub fn close(&mut self, t: u64) -> f64 {
        self.set(t, self.value);
        let span = (t - self.start) as f64;
        let mean = if span > 0.0 {
            self.area / span
        } else {
            self.value
        };
        self.area = 0.0;
        self.start = t;
        mean
    }
}

/// A tally of observations (count, mean, max), e.g. response times.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub n: u64,
    pub sum: f64,
    pub max: f64,
}

impl Tally {
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        if x > self.max {
            self.max = x;
        }
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }
    pub fn take(&mut self) -> Tally {
        std::mem::take(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_is_time_weighted() {
        let mut l = Level::default();
        l.set(0, 10.0);
        l.set(30, 20.0);
        assert!((l.close(60) - 15.0).abs() < 1e-9);
        assert!((l.close(120) - 20.0).abs() < 1e-9);
    }

    #[test]
    fn tally() {
        let mut t = Tally::default();
        for x in [1.0, 2.0, 6.0] {
            t.add(x);
        }
        assert_eq!(t.n, 3);
        assert!((t.mean() - 3.0).abs() < 1e-12);
        assert_eq!(t.take().max, 6.0);
        assert_eq!(t.n, 0);
    }
}
