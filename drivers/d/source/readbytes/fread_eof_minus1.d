/**
 * Strategy `fread_eof_minus1`: core.stdc.stdio.fread into an own 64 KiB buffer, as `fread`,
 * behind the seed's fourth D style (D-4): `int next()`, the byte 0..255, or -1 at the end of
 * the file, as Java's InputStream.read() ("std.c.stdio.fread with a semantic like java",
 * its readbytes4.d). Only the interface differs from `fread`: the same buffer, fread calls
 * and fields.
 */
module readbytes.fread_eof_minus1;

import core.stdc.stdio : fclose, ferror, FILE, fopen, fread;

import readbytes.common : chunkSize, errnoText, RunError;

/// A pass of fread_eof_minus1. `pos` and `len` are the unread part of the buffer; next()
/// refills it when it is empty, as the seed's did, and an empty refill is the end.
/// A plain struct, not a template over fread's interface, for gdc's stock build
/// (readbytes.fread says why).
struct FreadEofMinus1Bytes
{
    private FILE* file;
    private ubyte* buffer;
    private size_t pos, len;
    private string path;

    this(string path, ubyte[] buffer)
    {
        import core.stdc.errno : errno;
        import std.string : toStringz;

        assert(buffer.length == chunkSize);
        this.path = path;
        this.buffer = buffer.ptr;
        file = fopen(path.toStringz, "rb");
        if (file is null)
            throw new RunError("cannot open input '" ~ path ~ "': " ~ errnoText(errno));
    }

    /// The next byte, 0..255; -1 at the end of the file.
    int next()
    {
        if (pos == len)
        {
            fill();
            if (len == 0)
                return -1;
        }
        return buffer[pos++];
    }

    private void fill()
    {
        import core.stdc.errno : errno;

        pos = 0;
        len = fread(buffer, 1, chunkSize, file);
        if (len == 0 && ferror(file))
            throw new RunError("reading input '" ~ path ~ "': " ~ errnoText(errno));
    }

    void close()
    {
        fclose(file);
        file = null;
    }
}

struct FreadEofMinus1Strategy
{
    enum name = "fread_eof_minus1";
    enum cold = true;

    private ubyte[] buffer;

    /// Before timing: the own buffer, which every pass reuses.
    void prepare(string path)
    {
        buffer = new ubyte[chunkSize];
    }

    FreadEofMinus1Bytes open(string path)
    {
        return FreadEofMinus1Bytes(path, buffer);
    }
}
