/**
 * What every strategy and consumer of the readbytes suite shares (docs/protocol.md,
 * "Suite `readbytes`"): the data file's size, the value each pass must produce, the
 * strategies' buffer size, and the page-cache drop of `--cache cold`.
 */
module readbytes.common;

import core.sys.posix.sys.types : off_t;

/// Bytes in the suite's data file (docs/workloads.md §8): ids 0 .. 2,999,999, each the
/// tag byte 0x08 then the id as a varint.
enum ulong fileSize = 12_886_336;

/// The value of one pass, per case.
enum ulong expectedCount = 12_886_336;
/// ditto: the sum of the bytes (each 0..255) plus their count.
enum ulong expectedSum = 1_457_733_664;
/// ditto: the sum of the 3,000,000 decoded ids.
enum ulong expectedVarint = 4_499_998_500_000;

/// The own buffer of file_rawread, fread and dlsym_fread, and byChunk's chunk size.
enum size_t chunkSize = 64 * 1024;

/// A failed run that is not the command line's fault: exit status 1.
class RunError : Exception
{
    this(string msg, string file = __FILE__, size_t line = __LINE__) pure nothrow @safe
    {
        super(msg, file, line);
    }
}

/// The message of errno value `err`.
string errnoText(int err) nothrow @trusted
{
    import core.stdc.string : strerror;
    import std.string : fromStringz;

    return strerror(err).fromStringz.idup;
}

// druntime 2.100 (gdc 12, ldc 1.30) has posix_fadvise and the POSIX_FADV_* constants only
// inside a comment of core.sys.posix.fcntl; this is glibc's declaration, with Linux's value
// of POSIX_FADV_DONTNEED (x86_64 and every other Linux target but s390x, which has 6).
version (linux)
{
    private extern (C) int posix_fadvise(int fd, off_t offset, off_t len, int advice) nothrow @nogc;
    version (S390X)
        private enum POSIX_FADV_DONTNEED = 6;
    else
        private enum POSIX_FADV_DONTNEED = 4;
}

/**
 * `--cache cold`, before every pass and outside the timed region: open the file, advise
 * the kernel that its pages are not needed (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
 * and close it, so that the pass reads from the device.
 */
void dropCache(string path)
{
    import core.stdc.errno : errno;
    import core.sys.posix.fcntl : open, O_RDONLY;
    import core.sys.posix.unistd : close;
    import std.string : toStringz;

    version (linux)
    {
        const fd = open(path.toStringz, O_RDONLY);
        if (fd < 0)
            throw new RunError("cannot open input '" ~ path ~ "': " ~ errnoText(errno));
        const rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
        if (rc != 0)
            throw new RunError("posix_fadvise(" ~ path ~ ", POSIX_FADV_DONTNEED) failed: " ~ errnoText(rc));
    }
    else
        static assert(0, "--cache cold needs posix_fadvise (Linux)");
}
