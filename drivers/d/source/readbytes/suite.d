/**
 * The readbytes suite's run (docs/protocol.md, "Suite `readbytes`"): the passes of one
 * cell, each timed on its own, each value compared with the case's expectation.
 */
module readbytes.suite;

import core.time : MonoTime;

import readbytes.common : dropCache, errnoText, fileSize, RunError;
import readbytes.consumers : count, expectedValue, sum, varint, VarintError;
import readbytes.strategies : Strategies;

/// A validated `run` of one cell.
struct RunConfig
{
    string kase; /// count, sum or varint
    string lib; /// a strategy's name
    bool cold; /// --cache cold
    ulong iters; /// passes per sample
    ulong samples = 1;
    ulong warmup = 0; /// untimed passes before the first sample
    string input; /// the data file
}

/// What a run measured, and its evidence.
struct Outcome
{
    ulong[] timeNs; /// per sample: the sum of its passes' times
    ulong[] bytes; /// per sample: the bytes its passes read
    ulong[] check; /// per sample: the sum of its passes' values
    ulong passesChecked; /// passes whose value was compared, warm-up included
}

/// Runs the cell; a wrong value, a corrupt stream or an I/O error throw a RunError.
Outcome run(const RunConfig c)
{
    checkInput(c.input);
    static foreach (S; Strategies)
    {
        if (c.lib == S.name)
        {
            switch (c.kase)
            {
            case "count":
                return passes!(S, count)(c);
            case "sum":
                return passes!(S, sum)(c);
            case "varint":
                return passes!(S, varint)(c);
            default:
                assert(0, "unknown case " ~ c.kase);
            }
        }
    }
    assert(0, "unknown lib " ~ c.lib);
}

/// An input that cannot be opened fails the run before the first pass, naming the file.
private void checkInput(string path)
{
    import core.stdc.errno : errno;
    import core.stdc.stdio : fclose, fopen;
    import std.string : toStringz;

    auto f = fopen(path.toStringz, "rb");
    if (f is null)
        throw new RunError("cannot open input '" ~ path ~ "': " ~ errnoText(errno));
    fclose(f);
}

/// Which pass pass n (from 0, warm-up included) is, for a message.
string passName(const RunConfig c, ulong n) pure @safe
{
    import std.format : format;

    const total = c.warmup + c.iters * c.samples;
    if (n < c.warmup)
        return format!"pass %d of %d (warm-up pass %d of %d)"(n + 1, total, n + 1, c.warmup);
    const t = n - c.warmup;
    return format!"pass %d of %d (sample %d of %d, its pass %d of %d)"(n + 1, total, t / c.iters + 1,
            c.samples, t % c.iters + 1, c.iters);
}

/**
 * The passes of strategy S with consumer `consume`: warm-up, then the samples. A pass is
 * timed from just before the file is opened to just after it is closed; a cold cell drops
 * the file's pages before every pass, outside that interval.
 */
private Outcome passes(S, alias consume)(const RunConfig c)
{
    import std.format : format;

    const expected = expectedValue(c.kase);
    S strategy;
    strategy.prepare(c.input);

    ulong n = 0; // passes done
    // One pass: its value, and its time in ns.
    ulong pass(out ulong ns)
    {
        if (c.cold)
            dropCache(c.input);
        ulong value;
        const t0 = MonoTime.currTime;
        auto bytes = strategy.open(c.input);
        value = consume(bytes);
        bytes.close();
        const t1 = MonoTime.currTime;
        ns = (t1 - t0).total!"nsecs";
        if (value != expected)
            throw new RunError(format!"case %s, lib %s, input '%s': %s: value %d, expected %d"(c.kase,
                    c.lib, c.input, passName(c, n), value, expected));
        ++n;
        return value;
    }

    Outcome o;
    o.timeNs = new ulong[c.samples];
    o.bytes = new ulong[c.samples];
    o.check = new ulong[c.samples];
    try
    {
        ulong ns;
        foreach (_; 0 .. c.warmup)
            pass(ns);
        foreach (s; 0 .. c.samples)
        {
            ulong time = 0, check = 0;
            foreach (_; 0 .. c.iters)
            {
                check += pass(ns);
                time += ns;
            }
            o.timeNs[s] = time;
            o.check[s] = check;
            o.bytes[s] = c.iters * fileSize;
        }
    }
    catch (VarintError e)
        throw new RunError(format!"case %s, lib %s, input '%s': %s: %s"(c.kase, c.lib, c.input,
                passName(c, n), e.msg));
    o.passesChecked = n;
    return o;
}

unittest
{
    auto c = RunConfig("sum", "fread", false, 10, 3, 2, "x");
    assert(passName(c, 0) == "pass 1 of 32 (warm-up pass 1 of 2)");
    assert(passName(c, 2) == "pass 3 of 32 (sample 1 of 3, its pass 1 of 10)");
    assert(passName(c, 31) == "pass 32 of 32 (sample 3 of 3, its pass 10 of 10)");
}

// A whole run on a small file: the value differs from the expectation, so the first pass
// fails, naming it, the value and the expectation; an input that does not open fails too.
unittest
{
    import std.algorithm.searching : canFind;
    import std.conv : text;
    import std.file : remove, tempDir, write;
    import std.path : buildPath;
    import std.process : thisProcessID;

    import readbytes.consumers : shop;

    const path = buildPath(tempDir, text("wirebench-d-suite-unittest-", thisProcessID, ".pb"));
    write(path, shop(10));
    scope (exit)
        remove(path);
    auto c = RunConfig("count", "fread", false, 2, 1, 1, path);
    try
    {
        run(c);
        assert(0);
    }
    catch (RunError e)
        assert(e.msg.canFind("pass 1 of 3 (warm-up pass 1 of 1): value 20, expected 12886336"), e.msg);
    c.kase = "varint";
    c.lib = "range";
    c.warmup = 0;
    write(path, shop(10)[0 .. $ - 1] ~ ubyte(0x80));
    try
    {
        run(c);
        assert(0);
    }
    catch (RunError e)
        assert(e.msg.canFind("pass 1 of 2 (sample 1 of 1, its pass 1 of 2): byte offset 20: end of file"), e.msg);
    c.input = path ~ ".absent";
    try
    {
        run(c);
        assert(0);
    }
    catch (RunError e)
        assert(e.msg == "cannot open input '" ~ path ~ ".absent': No such file or directory", e.msg);
}
