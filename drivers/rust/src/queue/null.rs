//! Library `null` of the queue suite: the floor under `wbq`. The same loop, the same clock
//! reads, storing each entry's timestamp and values into a heap array touched before the
//! first run, with no header word, no file and no publication. Its "tailer" reads the
//! array back with the run's shape (it has no header to say how long an entry is).

use std::marker::PhantomData;
use std::path::Path;

use super::wbq::{Clock, Mono};
use super::{measure, Check, Outcome, Queue, Shape};
use crate::error::{Failure, Res};
use crate::registry::Run;

pub struct Null<C: Clock> {
    /// One run: per entry, the timestamp then its values.
    slots: Vec<i64>,
    /// Where the next entry goes; during a write, where the entry being written is.
    pos: usize,
    cursor: usize,
    longs: usize,
    _clock: PhantomData<C>,
}

/// The library's factory (src/queue/mod.rs): the cell's clock as a type.
pub fn make(run: &Run, dir: &Path) -> Res<Outcome> {
    match run.param("clock") {
        #[cfg(target_arch = "x86_64")]
        "tsc" => measure::<Null<super::wbq::Tsc>>(run, dir),
        _ => measure::<Null<Mono>>(run, dir),
    }
}

impl<C: Clock> Queue for Null<C> {
    fn open(_dir: &Path, shape: Shape) -> Res<Self> {
        let slots = usize::try_from(shape.entries * (1 + shape.longs))
            .map_err(|_| Failure::new("the null queue's array does not fit in memory"))?;
        Ok(Null {
            // Filled with a value (not calloc's untouched zero pages): every page is
            // touched before the first run.
            slots: vec![-1; slots],
            pos: 0,
            cursor: 0,
            longs: shape.longs as usize,
            _clock: PhantomData,
        })
    }

    #[inline]
    fn start(&mut self, _max_len: u32) -> Res<()> {
        self.slots[self.pos] = C::now();
        self.cursor = self.pos + 1;
        Ok(())
    }

    #[inline]
    fn write_long(&mut self, v: i64) {
        self.slots[self.cursor] = v;
        self.cursor += 1;
    }

    #[inline]
    fn end(&mut self) {
        self.pos = self.cursor;
    }

    /// The array was touched when it was made.
    fn pretouch(&mut self) -> Res<()> {
        Ok(())
    }

    fn read_back(&mut self, check: &mut Check) -> Res<()> {
        for entry in self.slots[..self.pos].chunks(1 + self.longs) {
            check.entry(entry[0], (entry.len() - 1) * 8)?;
            for &v in &entry[1..] {
                check.value(v)?;
            }
        }
        self.pos = 0;
        Ok(())
    }

    fn files(&self) -> (u64, u64) {
        (0, 0)
    }
}
