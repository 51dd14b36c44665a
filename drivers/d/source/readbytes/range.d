/**
 * Strategy `range`: the file as a D range of bytes, File.byChunk(64 KiB).joiner, consumed
 * with its own front, popFront and empty; the source only forwards to it and closes the
 * file after the pass.
 */
module readbytes.range;

import std.algorithm.iteration : joiner;
import std.stdio : File;

import readbytes.common : chunkSize;

private auto bytesOf(File file)
{
    return file.byChunk(chunkSize).joiner;
}

/// A pass of range.
struct RangeBytes
{
    private File file;
    private typeof(bytesOf(File.init)) bytes;

    this(string path)
    {
        file = File(path, "rb");
        bytes = bytesOf(file);
    }

    bool empty()
    {
        return bytes.empty;
    }

    ubyte front()
    {
        return bytes.front;
    }

    void popFront()
    {
        bytes.popFront();
    }

    /// Closes the file: byChunk's copy of the File shares its handle.
    void close()
    {
        file.close();
    }
}

struct RangeStrategy
{
    enum name = "range";
    enum cold = true;

    void prepare(string path)
    {
    }

    RangeBytes open(string path)
    {
        return RangeBytes(path);
    }
}
