/**
 * Strategy `fread_outparam`: core.stdc.stdio.fread into an own 64 KiB buffer, as `fread`,
 * behind the seed's third D style (D-3): `bool next(out ubyte b)`, false at the end of the
 * file, the byte in an out parameter ("std.c.stdio.fread with buffering, result is false for
 * eof and returnvalue is an out-param", its readbytes3.d). Only the interface differs from
 * `fread`: the same buffer, fread calls and fields.
 */
module readbytes.fread_outparam;

import core.stdc.stdio : fclose, ferror, FILE, fopen, fread;

import readbytes.common : chunkSize, errnoText, RunError;

/// A pass of fread_outparam. `pos` and `len` are the unread part of the buffer; next()
/// refills it when it is empty, as the seed's did, and an empty refill is the end.
/// A plain struct, not a template over fread's interface, for gdc's stock build
/// (readbytes.fread says why).
struct FreadOutParamBytes
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

    /// The next byte into b; false at the end of the file (b is then 0).
    bool next(out ubyte b)
    {
        if (pos == len)
        {
            fill();
            if (len == 0)
                return false;
        }
        b = buffer[pos++];
        return true;
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

struct FreadOutParamStrategy
{
    enum name = "fread_outparam";
    enum cold = true;

    private ubyte[] buffer;

    /// Before timing: the own buffer, which every pass reuses.
    void prepare(string path)
    {
        buffer = new ubyte[chunkSize];
    }

    FreadOutParamBytes open(string path)
    {
        return FreadOutParamBytes(path, buffer);
    }
}
