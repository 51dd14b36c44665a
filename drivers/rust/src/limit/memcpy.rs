//! Library `memcpy` of suite `limit`: how fast this machine copies a block. The buffers are
//! allocated and touched before timing; each iteration copies one block from `src` to
//! `dst` with `copy_from_slice` (memcpy), kept from being merged or dropped by
//! `std::hint::black_box`; the copy is verified after each sample, outside the timing.

use crate::error::{Failure, Res};
use crate::timing::Sampler;

pub struct Memcpy {
    src: Vec<u8>,
    dst: Vec<u8>,
}

/// The library's factory (src/limit/mod.rs).
pub fn make(block: usize) -> Box<dyn Sampler> {
    Box::new(Memcpy::new(block))
}

impl Memcpy {
    pub fn new(block: usize) -> Self {
        let src: Vec<u8> = (0..block)
            .map(|i| (i.wrapping_mul(131).wrapping_add(i >> 12)) as u8)
            .collect();
        let dst = vec![0u8; block];
        Memcpy { src, dst }
    }
}

impl Sampler for Memcpy {
    /// Makes dst differ from src, so that the check after the sample proves the copies ran.
    fn reset(&mut self) {
        self.dst.fill(0xa5);
    }

    fn iterate(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            let dst = std::hint::black_box(&mut self.dst);
            dst.copy_from_slice(std::hint::black_box(&self.src));
            std::hint::black_box(dst);
        }
        Ok(())
    }

    fn done(&mut self, sample: bool) -> Res<()> {
        if self.src != self.dst {
            return Err(Failure::new(if sample {
                "memcpy: the copy differs from the source"
            } else {
                "memcpy: the copy differs from the source after the warm-up"
            }));
        }
        Ok(())
    }
}
