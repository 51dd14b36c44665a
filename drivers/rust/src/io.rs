//! File descriptors handed to this process (`--in-fd`, `--out-fd`) or made by it (pipes),
//! and streams that count the bytes that cross them.

use std::fs::File;
use std::io::{Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, OwnedFd};

/// A file descriptor used as a stream; closed on drop only if this process owns it (a
/// client closes its fds when done; a server leaves `--in-fd` and `--out-fd` open, e.g.
/// when they are its stdin and stdout).
pub struct Fd {
    file: ManuallyDrop<File>,
    owned: bool,
}

impl Fd {
    /// Uses `fd`, which this process was handed for this use; `owned`: close it on drop.
    pub fn from_raw(fd: i32, owned: bool) -> Self {
        // SAFETY: the fd was handed to this process for this use (--in-fd/--out-fd) and
        // nothing else closes it while this value lives.
        Fd {
            file: ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }),
            owned,
        }
    }

    /// An fd this process made (a pipe end), closed on drop.
    pub fn owned(fd: impl Into<OwnedFd>) -> Self {
        Fd {
            file: ManuallyDrop::new(File::from(fd.into())),
            owned: true,
        }
    }
}

impl Drop for Fd {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: dropped once, here, and never used again.
            unsafe { ManuallyDrop::drop(&mut self.file) }
        }
    }
}

impl Read for Fd {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.file.read(buf)
    }
}

impl Write for Fd {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A stream that counts every byte read from or written to `inner`.
pub struct Counted<T> {
    inner: T,
    pub count: u64,
}

impl<T> Counted<T> {
    pub fn new(inner: T) -> Self {
        Counted { inner, count: 0 }
    }
}

impl<T: Read> Read for Counted<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

impl<T: Write> Write for Counted<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
