//! Suite `limit`, case `memcpy`: how fast this machine copies a block. The buffers are
//! allocated and touched before timing; each iteration copies one block from `src` to
//! `dst` with `copy_from_slice` (memcpy), kept from being merged or dropped by
//! `std::hint::black_box`; the copy is verified after each sample, outside the timing.

pub struct MemcpyCell {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl MemcpyCell {
    pub fn new(block: usize) -> Self {
        let src: Vec<u8> = (0..block)
            .map(|i| (i.wrapping_mul(131).wrapping_add(i >> 12)) as u8)
            .collect();
        let dst = vec![0u8; block];
        MemcpyCell { src, dst }
    }

    /// Makes dst differ from src, so that verify() proves the copies ran.
    pub fn scramble(&mut self) {
        self.dst.fill(0xa5);
    }

    pub fn copy(&mut self, iters: u64) {
        for _ in 0..iters {
            let dst = std::hint::black_box(&mut self.dst);
            dst.copy_from_slice(std::hint::black_box(&self.src));
            std::hint::black_box(dst);
        }
    }

    pub fn verify(&self) -> bool {
        self.src == self.dst
    }
}
