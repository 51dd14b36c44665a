/**
 * Strategy `file_rawread`: std.stdio.File.rawRead into an own 64 KiB buffer, then slicing:
 * the source hands out the bytes of the slice rawRead returned, one at a time, and reads
 * again when it runs dry (the seed's "std.stdio.File with arrayslicing").
 */
module readbytes.file_rawread;

import std.stdio : File;

import readbytes.common : chunkSize;

/// A pass of file_rawread. `window` is the unread part of the last rawRead; it is empty
/// only at the end of the file.
struct RawReadBytes
{
    private File file;
    private ubyte[] buffer;
    private ubyte[] window;

    this(string path, ubyte[] buffer)
    {
        file = File(path, "rb");
        this.buffer = buffer;
        window = file.rawRead(buffer);
    }

    bool empty() const
    {
        return window.length == 0;
    }

    ubyte front() const
    {
        return window[0];
    }

    void popFront()
    {
        window = window[1 .. $];
        if (window.length == 0)
            window = file.rawRead(buffer);
    }

    void close()
    {
        file.close();
    }
}

struct RawReadStrategy
{
    enum name = "file_rawread";
    enum cold = true;

    private ubyte[] buffer;

    /// Before timing: the own buffer, which every pass reuses.
    void prepare(string path)
    {
        buffer = new ubyte[chunkSize];
    }

    RawReadBytes open(string path)
    {
        return RawReadBytes(path, buffer);
    }
}
