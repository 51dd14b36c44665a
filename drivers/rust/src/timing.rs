//! The timing loop every suite shares (docs/protocol.md, `run`): an untimed reset before
//! the warm-up and before every sample, a monotonic clock around each sample's
//! iterations and nothing else, untimed checks after.

use std::time::Instant;

use crate::error::Res;
use crate::registry::Run;

/// A suite's side of the timing loop.
pub trait Sampler {
    /// Untimed, before the warm-up and before every sample: the rpc generator back to its
    /// initial state, memcpy's destination scrambled.
    fn reset(&mut self);
    /// Runs `n` iterations: the only timed code.
    fn iterate(&mut self, n: u64) -> Res<()>;
    /// Untimed, after the warm-up (`sample` false) and after every sample: the sample's
    /// checks and totals.
    fn done(&mut self, sample: bool) -> Res<()>;
}

/// Runs the warm-up (if any) and the timed samples of `run`; returns each sample's wall
/// time in nanoseconds.
pub fn measure<S: Sampler + ?Sized>(run: &Run, s: &mut S) -> Res<Vec<u64>> {
    if run.warmup > 0 {
        s.reset();
        s.iterate(run.warmup)?;
        s.done(false)?;
    }
    let mut ns = Vec::new();
    for _ in 0..run.samples {
        s.reset();
        let t0 = Instant::now();
        s.iterate(run.iters)?;
        let elapsed = t0.elapsed();
        ns.push(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        s.done(true)?;
    }
    Ok(ns)
}
