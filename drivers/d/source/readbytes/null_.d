/**
 * Strategy `null`, the floor: the file is read whole into memory once, before timing; a
 * pass consumes that memory through the same byte-source interface, with no I/O at all.
 * (The module is null_ because `null` is a keyword.)
 */
module readbytes.null_;

import readbytes.common : RunError;

/// A pass of null: a slice of the file's contents, handed out a byte at a time by slicing,
/// as the buffered sources hand out theirs.
struct NullBytes
{
    private const(ubyte)[] window;

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

    void close()
    {
    }
}

struct NullStrategy
{
    enum name = "null";
    /// No I/O in a pass: only `--cache warm` is a cell.
    enum cold = false;

    private const(ubyte)[] data;

    /// Before timing: the whole file, once.
    void prepare(string path)
    {
        import std.file : FileException, read;

        try
            data = cast(const(ubyte)[]) read(path);
        catch (FileException e)
            throw new RunError("cannot read input '" ~ path ~ "': " ~ e.msg);
    }

    NullBytes open(string path)
    {
        return NullBytes(data);
    }
}
