/**
 * Strategy `by_chunk`: File.byChunk(64 KiB), the range of chunks that Phobos reads into a
 * buffer of its own (allocated by byChunk, so once per pass); the source hands out each
 * chunk's bytes, one at a time.
 */
module readbytes.by_chunk;

import std.stdio : File;

import readbytes.common : chunkSize;

/// A pass of by_chunk. `window` is the unread part of the current chunk; it is empty only
/// at the end of the file.
struct ByChunkBytes
{
    private File file;
    private typeof(File.init.byChunk(size_t.init)) chunks;
    private ubyte[] window;

    this(string path)
    {
        file = File(path, "rb");
        chunks = file.byChunk(chunkSize);
        if (!chunks.empty)
            window = chunks.front;
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
            next();
    }

    private void next()
    {
        chunks.popFront();
        if (!chunks.empty)
            window = chunks.front;
    }

    /// Closes the file: byChunk's copy of the File shares its handle.
    void close()
    {
        file.close();
    }
}

struct ByChunkStrategy
{
    enum name = "by_chunk";
    enum cold = true;

    void prepare(string path)
    {
    }

    ByChunkBytes open(string path)
    {
        return ByChunkBytes(path);
    }
}
