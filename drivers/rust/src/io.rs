//! fd streams that count bytes at the fd (every byte written plus every byte read), and
//! the thread helper of pipe-async.

use std::fs::File;
use std::io::{Read, Write};
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

/// Runs `send` on the calling thread and `receive` on a second one. A failure on either
/// side cannot be unwound safely (the other side may be blocked on the pipe), so it ends
/// the process with exit status 1 after saying why (as the C++ driver does).
pub fn run_sender_receiver<S, R>(send: S, receive: R)
where
    S: FnOnce() -> crate::cases::Res<()>,
    R: FnOnce() -> crate::cases::Res<()> + Send,
{
    std::thread::scope(|scope| {
        let receiver = scope.spawn(move || {
            if let Err(e) = receive() {
                eprintln!("wirebench-rust: pipe-async receiver: {}", e.0);
                std::process::exit(1);
            }
        });
        if let Err(e) = send() {
            eprintln!("wirebench-rust: pipe-async sender: {}", e.0);
            std::process::exit(1);
        }
        if receiver.join().is_err() {
            eprintln!("wirebench-rust: pipe-async receiver panicked");
            std::process::exit(1);
        }
    });
}
