/**
 * The cases of the readbytes suite: consumers that take one byte per step from a byte
 * source and never see a buffer. A byte source is an input range of `ubyte` (`empty`,
 * `front`, `popFront`), or one of the two pull interfaces the seed's D styles 3 and 4
 * measured, where that interface is the strategy: `bool next(out ubyte)` (false at the
 * end; fread_outparam) and `int next()` (the byte, or -1 at the end, as Java's read();
 * fread_eof_minus1). Each consumer is one template, instantiated per strategy: no dynamic
 * dispatch per byte.
 */
module readbytes.consumers;

import std.range.primitives : ElementType, empty, front, isInputRange, popFront;

import readbytes.common : expectedCount, expectedSum, expectedVarint;

/// Is R a range byte source: an input range of ubyte.
enum isRangeSource(R) = isInputRange!R && is(ElementType!R : ubyte);

/// Is R an out-parameter byte source: `bool next(out ubyte b)`, false at the end.
enum isOutParamSource(R) = !isRangeSource!R && is(typeof((ref R r) { ubyte b; bool more = r.next(b); }));

/// Is R a -1-at-the-end byte source: `int next()`, the byte 0..255 or -1 at the end.
enum isEofMinus1Source(R) = !isRangeSource!R && is(typeof((ref R r) { int c = r.next(); }))
    && !isOutParamSource!R;

/// Is R a byte source: any of the three interfaces.
enum isByteSource(R) = isRangeSource!R || isOutParamSource!R || isEofMinus1Source!R;

/// The cases, in the order of `list`.
static immutable string[] caseNames = ["count", "sum", "varint"];

/// The value every pass of case `kase` must produce.
ulong expectedValue(string kase) pure @safe
{
    switch (kase)
    {
    case "count":
        return expectedCount;
    case "sum":
        return expectedSum;
    case "varint":
        return expectedVarint;
    default:
        assert(0, "unknown case " ~ kase);
    }
}

/**
 * Takes byte b into a register: an empty asm statement that uses it, and that no optimiser
 * may remove. count needs it: its value does not depend on the bytes, and without it both
 * compilers drop the loads, LDC even turns count over a slice (null, mmfile) into the
 * slice's length, so that a pass of mmfile, cold, would read no page of the file. It costs
 * the load of the byte, which is what a consumer that takes every byte does; sum and varint
 * use every byte's value and need nothing of the kind.
 */
pragma(inline, true) void take(ubyte b) nothrow @nogc pure @trusted
{
    version (GNU)
        asm nothrow @nogc pure @safe
        {
            "" : : "r" (b);
        }
    else version (LDC)
    {
        import ldc.llvmasm : __asm;

        __asm("", "r", b);
    }
    else
        static assert(0, "take: gdc or ldc2");
}

// count and sum call each interface directly, in the loop the seed wrote for it (its
// readbytes3.d and readbytes4.d): how a compiler handles that loop is what the variant measures.

/// count: the number of bytes read.
ulong count(R)(ref R bytes) if (isByteSource!R)
{
    ulong n = 0;
    static if (isRangeSource!R)
        while (!bytes.empty)
        {
            take(bytes.front);
            bytes.popFront();
            ++n;
        }
    else static if (isOutParamSource!R)
    {
        ubyte b;
        while (bytes.next(b))
        {
            take(b);
            ++n;
        }
    }
    else
    {
        int c;
        while ((c = bytes.next()) != -1)
        {
            take(cast(ubyte) c);
            ++n;
        }
    }
    return n;
}

/// sum: the sum of the bytes read, each 0..255, plus their count.
ulong sum(R)(ref R bytes) if (isByteSource!R)
{
    ulong s = 0, n = 0;
    static if (isRangeSource!R)
        while (!bytes.empty)
        {
            s += bytes.front;
            bytes.popFront();
            ++n;
        }
    else static if (isOutParamSource!R)
    {
        ubyte b;
        while (bytes.next(b))
        {
            s += b;
            ++n;
        }
    }
    else
    {
        int c;
        while ((c = bytes.next()) != -1)
        {
            s += c;
            ++n;
        }
    }
    return s + n;
}

/// The stream is not what case varint decodes; `offset` is the byte offset named.
class VarintError : Exception
{
    const ulong offset;

    this(string msg, ulong offset, string file = __FILE__, size_t line = __LINE__) pure nothrow @safe
    {
        super(msg, file, line);
        this.offset = offset;
    }
}

// The cold paths, out of line so that the decoding loop stays small.
private void badTag(ubyte tag, ulong offset)
{
    import std.format : format;

    pragma(inline, false);
    throw new VarintError(format!"byte offset %d: tag 0x%02x, expected 0x08 (field 1, varint)"(offset, tag),
        offset);
}

private void overlong(ulong start)
{
    import std.format : format;

    pragma(inline, false);
    throw new VarintError(format!"byte offset %d: varint longer than 10 bytes"(start), start);
}

private void endInVarint(ulong offset, ulong start)
{
    import std.format : format;

    pragma(inline, false);
    throw new VarintError(format!"byte offset %d: end of file inside the varint that starts at byte offset %d"(
            offset, start), offset);
}

/**
 * The next byte of a pull source into b; false at the end. varint's one loop over both pull
 * interfaces; forced inline, since gdc's stock build does not inline a template instance
 * by itself (README.md) and would otherwise pay a call per byte.
 */
pragma(inline, true) private bool pull(R)(ref R bytes, out ubyte b)
        if (isOutParamSource!R || isEofMinus1Source!R)
{
    static if (isOutParamSource!R)
        return bytes.next(b);
    else
    {
        const c = bytes.next();
        if (c == -1)
            return false;
        b = cast(ubyte) c;
        return true;
    }
}

/**
 * varint: decode the stream as protobuf, each field the tag byte 0x08 (field 1, wire type
 * varint) then a varint of at most 10 bytes, low groups first; the value is the sum of the
 * decoded values (wrapping, as uint64). Another tag, a varint longer than 10 bytes or the
 * end of the stream inside a varint throw a VarintError naming the byte offset: of the tag,
 * of the varint's first byte, and of the end of the stream.
 */
ulong varint(R)(ref R bytes) if (isRangeSource!R)
{
    ulong total = 0;
    ulong offset = 0; // of the next byte
    while (!bytes.empty)
    {
        const ubyte tag = bytes.front;
        if (tag != 0x08)
            badTag(tag, offset);
        bytes.popFront();
        ++offset;
        const start = offset;
        ulong value = 0;
        uint shift = 0;
        for (;;)
        {
            if (bytes.empty)
                endInVarint(offset, start);
            const ubyte b = bytes.front;
            bytes.popFront();
            ++offset;
            value |= cast(ulong)(b & 0x7f) << shift;
            if (b < 0x80)
                break;
            shift += 7;
            if (shift == 70) // a 10th byte that says another follows
                overlong(start);
        }
        total += value;
    }
    return total;
}

/// ditto, for the pull sources: the same decoding, each byte taken with `pull`.
ulong varint(R)(ref R bytes) if (isOutParamSource!R || isEofMinus1Source!R)
{
    ulong total = 0;
    ulong offset = 0; // of the next byte
    ubyte tag;
    while (pull(bytes, tag))
    {
        if (tag != 0x08)
            badTag(tag, offset);
        ++offset;
        const start = offset;
        ulong value = 0;
        uint shift = 0;
        for (;;)
        {
            ubyte b;
            if (!pull(bytes, b))
                endInVarint(offset, start);
            ++offset;
            value |= cast(ulong)(b & 0x7f) << shift;
            if (b < 0x80)
                break;
            shift += 7;
            if (shift == 70) // a 10th byte that says another follows
                overlong(start);
        }
        total += value;
    }
    return total;
}

version (unittest)
{
    /// A byte source over a buffer, as the strategies' buffered sources are: it is not
    /// an array, so the consumers see nothing but empty, front and popFront.
    private struct Bytes
    {
        const(ubyte)[] rest;
        bool empty() const
        {
            return rest.length == 0;
        }

        ubyte front() const
        {
            return rest[0];
        }

        void popFront()
        {
            rest = rest[1 .. $];
        }
    }

    /// The two pull interfaces over a buffer, as fread_outparam and fread_eof_minus1 are.
    private struct OutParamBytes
    {
        const(ubyte)[] rest;
        bool next(out ubyte b)
        {
            if (rest.length == 0)
                return false;
            b = rest[0];
            rest = rest[1 .. $];
            return true;
        }
    }

    /// ditto
    private struct EofMinus1Bytes
    {
        const(ubyte)[] rest;
        int next()
        {
            if (rest.length == 0)
                return -1;
            const b = rest[0];
            rest = rest[1 .. $];
            return b;
        }
    }

    /// The varint encoding of v, low groups first.
    ubyte[] encodeVarint(ulong v) pure @safe
    {
        ubyte[] o;
        do
        {
            ubyte b = v & 0x7f;
            v >>= 7;
            if (v)
                b |= 0x80;
            o ~= b;
        }
        while (v);
        return o;
    }

    /// The suite's data for ids 0 .. n-1: tag 0x08, then the id as a varint.
    ubyte[] shop(ulong n) pure @safe
    {
        ubyte[] o;
        foreach (i; 0 .. n)
            o ~= ubyte(0x08) ~ encodeVarint(i);
        return o;
    }

    /// varint's error on data through source S (Bytes, or a pull source), or null.
    private VarintError varintError(S = Bytes)(const(ubyte)[] data)
    {
        auto b = S(data);
        try
            varint(b);
        catch (VarintError e)
            return e;
        return null;
    }
}

unittest // count and sum on small buffers
{
    static assert(isByteSource!Bytes && isByteSource!(const(ubyte)[]));
    static assert(!isByteSource!(int[]) && !isByteSource!(ubyte[][]));
    static assert(isOutParamSource!OutParamBytes && !isEofMinus1Source!OutParamBytes
            && !isRangeSource!OutParamBytes);
    static assert(isEofMinus1Source!EofMinus1Bytes && !isOutParamSource!EofMinus1Bytes
            && !isRangeSource!EofMinus1Bytes);
    auto empty = Bytes([]);
    assert(count(empty) == 0);
    auto b = Bytes([1, 2, 255, 0]);
    assert(count(b) == 4);
    assert(b.empty, "count consumes every byte");
    b = Bytes([1, 2, 255, 0]);
    assert(sum(b) == 1 + 2 + 255 + 0 + 4);
    empty = Bytes([]);
    assert(sum(empty) == 0);
    // An array is a byte source too (null and mmfile consume slices).
    const(ubyte)[] a = [7, 8, 9];
    assert(sum(a) == 24 + 3 && a.length == 0);
}

unittest // varint: values, lengths, the 10-byte limit
{
    assert(encodeVarint(0) == [0x00]);
    assert(encodeVarint(300) == [0xac, 0x02]);
    assert(encodeVarint(ulong.max).length == 10);
    foreach (v; [0UL, 1, 127, 128, 300, 16_383, 16_384, 2_999_999, uint.max, long.max, ulong.max])
    {
        auto b = Bytes(ubyte(0x08) ~ encodeVarint(v));
        assert(varint(b) == v);
    }
    auto b = Bytes(shop(1000));
    assert(varint(b) == 999 * 1000 / 2);
    auto none = Bytes([]);
    assert(varint(none) == 0);
    // Non-canonical but legal: 0 in 10 bytes.
    auto padded = Bytes([0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    assert(varint(padded) == 0);
    // Sums wrap as uint64.
    auto two = Bytes(ubyte(0x08) ~ encodeVarint(ulong.max) ~ ubyte(0x08) ~ encodeVarint(2));
    assert(varint(two) == 1);
}

unittest // varint: every error names its byte offset
{
    import std.algorithm.searching : canFind;

    // A bad tag: the offset of the tag byte.
    auto e = varintError([0x08, 0x05, 0x10, 0x05]);
    assert(e !is null && e.offset == 2);
    assert(e.msg == "byte offset 2: tag 0x10, expected 0x08 (field 1, varint)", e.msg);
    e = varintError([0x00]);
    assert(e !is null && e.offset == 0 && e.msg.canFind("tag 0x00"));
    auto data = shop(200);
    data[150] = 0x0a; // a tag (ids below 128 are two bytes: 150 is a tag)
    e = varintError(data);
    assert(e !is null && e.offset == 150 && e.msg.canFind("tag 0x0a"), e.msg);

    // Longer than 10 bytes: the offset of the varint's first byte.
    ubyte[] eleven = [0x08, 0x01, 0x08];
    foreach (i; 0 .. 10)
        eleven ~= 0x80;
    eleven ~= 0x01;
    e = varintError(eleven);
    assert(e !is null && e.offset == 3, e.msg);
    assert(e.msg == "byte offset 3: varint longer than 10 bytes", e.msg);

    // The end of the stream inside a varint: the offset where it ended, and where the
    // varint started.
    e = varintError([0x08]);
    assert(e !is null && e.offset == 1, e.msg);
    assert(e.msg == "byte offset 1: end of file inside the varint that starts at byte offset 1", e.msg);
    e = varintError([0x08, 0x00, 0x08, 0xac]);
    assert(e !is null && e.offset == 4, e.msg);
    assert(e.msg == "byte offset 4: end of file inside the varint that starts at byte offset 3", e.msg);
    auto cut = shop(200);
    e = varintError(cut[0 .. $ - 1]);
    assert(e !is null && e.offset == cut.length - 1, e.msg);
}

unittest // the pull sources: every case, value and error as through a range
{
    import std.meta : AliasSeq;

    ubyte[] eleven = [0x08, 0x01, 0x08];
    foreach (i; 0 .. 10)
        eleven ~= 0x80;
    eleven ~= 0x01;
    auto corrupt = shop(200);
    corrupt[150] = 0x0a;
    const(ubyte)[] none = [], bytes = [0, 1, 255, 0x80], tagOnly = [0x08], cut = [0x08, 0x00, 0x08, 0xac],
        padded = [0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
    const(ubyte)[][] inputs = [none, bytes, tagOnly, cut, padded, shop(1000), shop(200)[0 .. $ - 1], corrupt, eleven];
    foreach (data; inputs)
    {
        auto want = varintError(data);
        static foreach (S; AliasSeq!(OutParamBytes, EofMinus1Bytes))
        {{
            auto b = S(data), r = Bytes(data);
            assert(count(b) == data.length, S.stringof);
            b = S(data);
            assert(sum(b) == sum(r), S.stringof);
            auto got = varintError!S(data);
            assert((got is null) == (want is null), S.stringof);
            if (want is null)
            {
                b = S(data);
                r = Bytes(data);
                assert(varint(b) == varint(r), S.stringof);
            }
            else
                assert(got.msg == want.msg && got.offset == want.offset, S.stringof ~ ": " ~ got.msg);
        }}
    }
}

unittest // the expected values
{
    assert(expectedValue("count") == 12_886_336);
    assert(expectedValue("sum") == 1_457_733_664);
    assert(expectedValue("varint") == 4_499_998_500_000);
}
