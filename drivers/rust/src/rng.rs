//! The deterministic generator every rpc client draws from (docs/workloads.md): the 128-bit
//! xorshift of the Cap'n Proto benchmarks. The state is an explicit value, passed `&mut` to
//! whatever builds requests (not a global): in pipe-async the sending thread draws while the
//! timing loop owns the reset, and an explicit state keeps that safe without atomics.

#[derive(Clone, Debug)]
pub struct Rng {
    x: u32,
    y: u32,
    z: u32,
    w: u32,
}

impl Default for Rng {
    fn default() -> Self {
        Self::new()
    }
}

impl Rng {
    pub const fn new() -> Self {
        Rng {
            x: 0x1d2a_cd47,
            y: 0x58ca_3e14,
            z: 0xf563_f232,
            w: 0x0bc7_6199,
        }
    }

    /// Back to the initial state (start of the warm-up and of every sample).
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        let t = self.x ^ (self.x << 11);
        self.x = self.y;
        self.y = self.z;
        self.z = self.w;
        self.w = self.w ^ (self.w >> 19) ^ t ^ (t >> 8);
        self.w
    }

    /// `next() % n`.
    #[inline(always)]
    pub fn rand(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }

    /// `double(next()) * range / 4294967295.0`.
    #[inline(always)]
    pub fn rand_double(&mut self, range: f64) -> f64 {
        f64::from(self.next_u32()) * range / 4_294_967_295.0
    }
}

/// A local copy of a generator that is stored back when dropped (`Rng::local`).
pub struct LocalRng<'a> {
    orig: &'a mut Rng,
    pub g: Rng,
}

impl Drop for LocalRng<'_> {
    fn drop(&mut self) {
        *self.orig = self.g.clone();
    }
}

impl Rng {
    /// Works on a copy that lives in the caller's frame, so that the compiler can keep the
    /// four words in registers: through `&mut Rng` it must reload them after every store
    /// made through another pointer (a builder's setter, a string push) between draws.
    /// Measured: the null carsales object cell ran 2x faster with this.
    #[inline(always)]
    pub fn local(&mut self) -> LocalRng<'_> {
        let g = self.clone();
        LocalRng { orig: self, g }
    }
}
