/**
 * Strategy `fread`: core.stdc.stdio.fread into an own 64 KiB buffer (the seed's "fread
 * with buffering, returning the number of bytes and taking a naked pointer").
 */
module readbytes.fread;

import core.stdc.stdio : fclose, ferror, FILE, fopen, fread;

import readbytes.common : chunkSize, errnoText, RunError;

/// A pass of fread: the file opened with fopen, read with fread into the own buffer, closed
/// with fclose. `pos` and `len` are the unread part of the buffer; `pos == len` only at the
/// end of the file.
///
/// dlsym_fread's source is this one with the function pointer in place of fread; it is a
/// copy, not a template over the fread it calls, because gdc emits a template's members as
/// weak symbols and does not inline them (see README.md): a byte source that is a template
/// would cost gdc's stock build a call per byte that the other strategies do not pay.
struct FreadBytes
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
        fill();
    }

    bool empty() const
    {
        return pos == len;
    }

    ubyte front() const
    {
        return buffer[pos];
    }

    void popFront()
    {
        if (++pos == len)
            fill();
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

struct FreadStrategy
{
    enum name = "fread";
    enum cold = true;

    private ubyte[] buffer;

    /// Before timing: the own buffer, which every pass reuses.
    void prepare(string path)
    {
        buffer = new ubyte[chunkSize];
    }

    FreadBytes open(string path)
    {
        return FreadBytes(path, buffer);
    }
}
