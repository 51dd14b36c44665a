/**
 * Strategy `mmfile`: std.mmfile.MmFile (read-only, the whole file mapped), consumed as a
 * slice of the mapping, a byte at a time by slicing (the seed's "mmfile and a direct
 * pointer to the slice"). A pass maps, consumes, and unmaps and closes (destroy runs
 * MmFile's destructor).
 */
module readbytes.mmfile;

import std.mmfile : MmFile;

/// A pass of mmfile.
struct MmFileBytes
{
    private MmFile map;
    private const(ubyte)[] window;

    this(string path)
    {
        import std.exception : ErrnoException;
        import std.file : getSize;

        try
            map = new MmFile(path);
        catch (ErrnoException e)
        {
            // mmap refuses a length of 0: an empty file has no mapping, and no bytes.
            if (getSize(path) == 0)
                return;
            throw e;
        }
        window = cast(const(ubyte)[]) map[];
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
    }

    /// Unmaps and closes.
    void close()
    {
        window = null;
        if (map !is null)
            destroy(map);
        map = null;
    }
}

struct MmFileStrategy
{
    enum name = "mmfile";
    enum cold = true;

    void prepare(string path)
    {
    }

    MmFileBytes open(string path)
    {
        return MmFileBytes(path);
    }
}
