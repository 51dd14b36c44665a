//! The two ways a command ends badly (docs/protocol.md, exit status): a failed run
//! (`Failure`, exit 1: wrong answer, corrupt message, I/O error) and bad usage (exit 2).

/// A failed run: exit status 1. Each library converts its own errors into one (in its
/// file); everything else uses `Failure::new` or `?` on an I/O error.
#[derive(Debug)]
pub struct Failure(pub String);

impl Failure {
    pub fn new(s: impl Into<String>) -> Self {
        Failure(s.into())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure(format!("I/O error: {e}"))
    }
}

pub type Res<T> = Result<T, Failure>;

/// What a command returns: bad usage (exit status 2) or a failed run (exit status 1).
#[derive(Debug)]
pub enum Error {
    Usage(String),
    Fail(String),
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        Error::Fail(f.0)
    }
}

/// A usage error: names the flag or value and, where there are any, the legal ones.
pub fn usage(s: impl Into<String>) -> Error {
    Error::Usage(s.into())
}
