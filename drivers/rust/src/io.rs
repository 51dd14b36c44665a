//! fd streams that count bytes at the fd (every byte written plus every byte read), and
//! the thread helper of pipe-async.

use std::fs::File;
use std::io::{Read, Write};

use crate::cases::{Failure, Res};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;

pub struct CountingReader {
    inner: ManuallyDrop<File>,
    owned: bool,
    pub count: u64,
}

impl Drop for CountingReader {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: dropped once, here, and never used again.
            unsafe { ManuallyDrop::drop(&mut self.inner) }
        }
    }
}

impl CountingReader {
    /// Uses `fd`; closes it on drop only if `owned` (a client closes its fds when done;
    /// a server leaves them open, e.g. when they are its stdin and stdout).
    pub fn from_fd(fd: i32, owned: bool) -> Self {
        // SAFETY: the fd was handed to this process for this use (--in-fd/--out-fd or a
        // pipe we created) and nothing else closes it while this value lives.
        CountingReader {
            inner: ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }),
            owned,
            count: 0,
        }
    }
}

impl Read for CountingReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

pub struct CountingWriter {
    inner: ManuallyDrop<File>,
    owned: bool,
    pub count: u64,
}

impl Drop for CountingWriter {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: dropped once, here, and never used again.
            unsafe { ManuallyDrop::drop(&mut self.inner) }
        }
    }
}

impl CountingWriter {
    /// Uses `fd`; closes it on drop only if `owned` (see CountingReader::from_fd).
    pub fn from_fd(fd: i32, owned: bool) -> Self {
        // SAFETY: as in CountingReader::from_fd.
        CountingWriter {
            inner: ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }),
            owned,
            count: 0,
        }
    }
}

impl Write for CountingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// pipe-async for every library: `send_one` writes one request and returns the
/// expectation for its response, `iters` times on the calling thread, while `receive_one`
/// reads one response and checks it against its expectation, `iters` times on a second
/// thread; the expectations cross over a channel, in order. A failure on either side
/// cannot be unwound safely (the other side may be blocked on the pipe), so it ends the
/// process with exit status 1 after saying why (as the C++ driver does).
pub fn pipe_async<E, S, R>(iters: u64, mut send_one: S, mut receive_one: R)
where
    E: Send,
    S: FnMut() -> Res<E>,
    R: FnMut(E) -> Res<()> + Send,
{
    let (tx, rx) = std::sync::mpsc::channel::<E>();
    std::thread::scope(|scope| {
        let receiver = scope.spawn(move || {
            for _ in 0..iters {
                let got = rx
                    .recv()
                    .map_err(|_| Failure::new("pipe-async: the sender is gone"))
                    .and_then(&mut receive_one);
                if let Err(e) = got {
                    eprintln!("wirebench-rust: pipe-async receiver: {}", e.0);
                    std::process::exit(1);
                }
            }
        });
        for _ in 0..iters {
            let sent = send_one().and_then(|e| {
                tx.send(e)
                    .map_err(|_| Failure::new("pipe-async: the receiver is gone"))
            });
            if let Err(e) = sent {
                eprintln!("wirebench-rust: pipe-async sender: {}", e.0);
                std::process::exit(1);
            }
        }
        if receiver.join().is_err() {
            eprintln!("wirebench-rust: pipe-async receiver panicked");
            std::process::exit(1);
        }
    });
}
