/**
 * The registry of the readbytes suite's strategies (the `lib` of a cell), in the order of
 * `list`. A strategy is a struct with
 *
 * - `enum string name`: the lib's name;
 * - `enum bool cold`: whether `--cache cold` is a cell (every strategy but null);
 * - `void prepare(string path)`: once per run, before timing (own buffers, dlsym, null's
 *   read of the whole file);
 * - `open(string path)`: one pass's byte source, the file opened: an input range of ubyte
 *   (`empty`, `front`, `popFront`), or, for the seed's D styles 3 and 4, a pull source
 *   (readbytes.consumers), with a `close()` that closes (and unmaps) it.
 *
 * The seed's first D style (D-1), std.stream.BufferedFile with a ubyte[1] read, has no strategy:
 * std.stream was deprecated in 2.070 and removed from Phobos in 2.075, long before the 2.100
 * frontend of gdc 12 and ldc 1.30.
 */
module readbytes.strategies;

import std.meta : AliasSeq, staticMap;

public import readbytes.by_chunk : ByChunkStrategy;
public import readbytes.dlsym_fread : DlsymFreadStrategy;
public import readbytes.file_rawread : RawReadStrategy;
public import readbytes.fread : FreadStrategy;
public import readbytes.fread_eof_minus1 : FreadEofMinus1Strategy;
public import readbytes.fread_outparam : FreadOutParamStrategy;
public import readbytes.mmfile : MmFileStrategy;
public import readbytes.null_ : NullStrategy;
public import readbytes.range : RangeStrategy;

import readbytes.consumers : isByteSource;

/// Every strategy, in the order of `list`.
alias Strategies = AliasSeq!(NullStrategy, RawReadStrategy, ByChunkStrategy, FreadStrategy,
        DlsymFreadStrategy, MmFileStrategy, RangeStrategy, FreadOutParamStrategy, FreadEofMinus1Strategy);

private enum nameOf(S) = S.name;

/// The libs, in the order of `list`.
static immutable string[] libNames = [staticMap!(nameOf, Strategies)];

/// The values of --cache, in the order of `list`.
static immutable string[] cacheNames = ["warm", "cold"];

/// The values of --cache that lib takes (null: warm only).
immutable(string)[] cachesOf(string lib) pure @safe
{
    static foreach (S; Strategies)
        if (lib == S.name)
            return S.cold ? cacheNames : cacheNames[0 .. 1];
    assert(0, "unknown lib " ~ lib);
}

static foreach (S; Strategies)
    static assert(isByteSource!(typeof(S.init.open(""))) && __traits(hasMember, typeof(S.init.open("")), "close"),
            S.name ~ ": a pass must be a byte source with close()");

unittest
{
    assert(libNames == ["null", "file_rawread", "by_chunk", "fread", "dlsym_fread", "mmfile", "range",
            "fread_outparam", "fread_eof_minus1"]);
    assert(cachesOf("null") == ["warm"]);
    assert(cachesOf("mmfile") == ["warm", "cold"]);
}

// Every strategy with every consumer on small files, around the 64 KiB refills: the value
// must be that of the consumer on the file's bytes in memory.
unittest
{
    import std.conv : text;
    import std.file : remove, tempDir, write;
    import std.path : buildPath;
    import std.process : thisProcessID;

    import readbytes.common : chunkSize;
    import readbytes.consumers : count, isOutParamSource, isRangeSource, shop, sum, varint, VarintError;

    const path = buildPath(tempDir, text("wirebench-d-unittest-", thisProcessID, ".pb"));
    scope (exit)
        remove(path);
    auto data = shop(40_000); // about 118 KiB: one full buffer and a part
    foreach (size; [0, 1, 2, chunkSize - 1, chunkSize, chunkSize + 1, 2 * chunkSize, data.length])
    {
        auto content = data[0 .. size];
        write(path, content);
        static foreach (S; Strategies)
        {{
            S s;
            s.prepare(path);
            foreach (pass; 0 .. 2) // a buffer reused by a second pass starts afresh
            {
                auto b = s.open(path);
                assert(count(b) == size, text(S.name, " count ", size));
                // and it stays at the end
                static if (isRangeSource!(typeof(b)))
                    assert(b.empty, S.name);
                else static if (isOutParamSource!(typeof(b)))
                {
                    ubyte x;
                    assert(!b.next(x), S.name);
                }
                else
                    assert(b.next() == -1, S.name);
                b.close();
                b = s.open(path);
                const(ubyte)[] mem = content;
                assert(sum(b) == sum(mem), text(S.name, " sum ", size));
                b.close();
                b = s.open(path);
                mem = content;
                // Whether the cut falls inside a varint or not, the strategy must agree
                // with the bytes in memory.
                ulong want, got;
                string wantErr, gotErr;
                try
                    want = varint(mem);
                catch (VarintError e)
                    wantErr = e.msg;
                try
                    got = varint(b);
                catch (VarintError e)
                    gotErr = e.msg;
                assert(got == want && gotErr == wantErr, text(S.name, " varint ", size, ": ", gotErr));
                b.close();
            }
        }}
    }
}
