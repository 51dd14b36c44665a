/**
 * Strategy `dlsym_fread`: fread found at run time through dlopen("libc.so.6") and
 * dlsym("fread") (core.sys.posix.dlfcn), called through the function pointer, into an own
 * 64 KiB buffer. fread is looked up once per process, before timing, as the seed did.
 */
module readbytes.dlsym_fread;

import core.stdc.stdio : fclose, ferror, FILE, fopen;

import readbytes.common : chunkSize, errnoText, RunError;

/// fread's type.
alias FreadFn = extern (C) size_t function(void* ptr, size_t size, size_t n, FILE* stream) nothrow @nogc;

/// The fread that dlsym found (null before the first lookUpFread).
__gshared FreadFn dlsymFread;

/// Looks fread up in libc.so.6, once per process.
FreadFn lookUpFread()
{
    import core.sys.posix.dlfcn : dlerror, dlopen, dlsym, RTLD_NOW;
    import std.string : fromStringz;

    if (dlsymFread !is null)
        return dlsymFread;
    void* libc = dlopen("libc.so.6", RTLD_NOW);
    if (libc is null)
        throw new RunError("dlopen(\"libc.so.6\") failed: " ~ dlerror().fromStringz.idup);
    void* f = dlsym(libc, "fread");
    if (f is null)
        throw new RunError("dlsym(\"fread\") failed: " ~ dlerror().fromStringz.idup);
    // The handle stays open: the pointer is used until the process exits.
    dlsymFread = cast(FreadFn) f;
    return dlsymFread;
}

/// A pass of dlsym_fread: readbytes.fread.FreadBytes, with dlsym's fread (a copy, not a
/// template: see there).
struct DlsymFreadBytes
{
    private FILE* file;
    private ubyte* buffer;
    private size_t pos, len;
    private string path;
    private FreadFn read;

    this(string path, ubyte[] buffer, FreadFn read)
    {
        import core.stdc.errno : errno;
        import std.string : toStringz;

        assert(buffer.length == chunkSize && read !is null);
        this.path = path;
        this.buffer = buffer.ptr;
        this.read = read;
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
        len = read(buffer, 1, chunkSize, file);
        if (len == 0 && ferror(file))
            throw new RunError("reading input '" ~ path ~ "': " ~ errnoText(errno));
    }

    void close()
    {
        fclose(file);
        file = null;
    }
}

struct DlsymFreadStrategy
{
    enum name = "dlsym_fread";
    enum cold = true;

    private ubyte[] buffer;
    private FreadFn read;

    /// Before timing: fread looked up, and the own buffer, which every pass reuses.
    void prepare(string path)
    {
        read = lookUpFread();
        buffer = new ubyte[chunkSize];
    }

    DlsymFreadBytes open(string path)
    {
        return DlsymFreadBytes(path, buffer, read);
    }
}

unittest
{
    auto f = lookUpFread();
    assert(f !is null && lookUpFread() is f);
    // Reading through it is tested with every strategy in readbytes.strategies.
}
