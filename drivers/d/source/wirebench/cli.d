/**
 * The command line of `run` (docs/protocol.md): --NAME VALUE and --NAME=VALUE pairs,
 * checked against the registry. A bad command line is a UsageError (exit status 2) whose
 * message names the flag or value and lists the legal ones.
 */
module wirebench.cli;

import std.algorithm.searching : canFind;
import std.array : join;
import std.format : format;

import readbytes.consumers : caseNames;
import readbytes.strategies : cachesOf, cacheNames, libNames;
import readbytes.suite : RunConfig;

/// A bad command line: exit status 2.
class UsageError : Exception
{
    this(string msg, string file = __FILE__, size_t line = __LINE__) pure nothrow @safe
    {
        super(msg, file, line);
    }
}

/// The suites this driver runs.
static immutable string[] suiteNames = ["readbytes"];

/// The flags of `run` for suite readbytes, in the order of the usage.
static immutable string[] runFlags = ["suite", "case", "lib", "cache", "iters", "samples", "warmup", "input"];

/// Flags of the protocol that suite readbytes does not take (each refused with its reason).
private static immutable string[] otherFlags = ["role", "in-fd", "out-fd", "work-dir", "out-dir"];

/// The largest --iters, --samples and --warmup: warmup + iters × samples stays far from
/// 2^64, and so do the checks (iters × 4,499,998,500,000).
enum ulong maxCount = 1UL << 20;

private string oneOf(const string[] values) pure @safe
{
    return "(one of: " ~ values.join(", ") ~ ")";
}

/// The flags of argv as name → value, in a map; names not known are usage errors.
string[string] parseFlags(const string[] argv) pure @safe
{
    import std.algorithm.searching : findSplit, startsWith;

    string[string] flags;
    for (size_t i = 0; i < argv.length; ++i)
    {
        const a = argv[i];
        if (!a.startsWith("--") || a.length == 2)
            throw new UsageError(format!"unexpected argument '%s'"(a));
        string name = a[2 .. $], value;
        bool inline = false;
        if (auto parts = name.findSplit("="))
        {
            name = parts[0];
            value = parts[2];
            inline = true;
        }
        if (!runFlags.canFind(name) && !otherFlags.canFind(name))
            throw new UsageError(format!"unknown flag --%s (flags: --%-(%s, --%))"(name, runFlags));
        if (!inline)
        {
            if (++i == argv.length)
                throw new UsageError(format!"flag --%s needs a value"(name));
            value = argv[i];
        }
        if (name in flags)
            throw new UsageError(format!"flag --%s given twice"(name));
        flags[name] = value;
    }
    return flags;
}

/// The value of --name, which must be one of values; context says whose values they are.
private string choice(const string[string] flags, string name, const string[] values, string context = "") pure @safe
{
    auto v = name in flags;
    if (v is null)
        throw new UsageError(format!"missing --%s %s"(name, oneOf(values)));
    if (!values.canFind(*v))
        throw new UsageError(format!"unknown value for --%s: '%s'%s %s"(name, *v, context, oneOf(values)));
    return *v;
}

/// The count --name: a decimal integer from min to maxCount; def without the flag.
private ulong countFlag(const string[string] flags, string name, ulong min, ulong def) pure @safe
{
    import std.conv : ConvException, to;
    import std.string : representation;
    import std.ascii : isDigit;
    import std.algorithm.searching : all;

    auto s = name in flags;
    if (s is null)
        return def;
    const bad = format!"bad value for --%s: '%s' (want a decimal integer from %d to %d)"(name, *s, min, maxCount);
    if ((*s).length == 0 || (*s).length > 19 || !(*s).representation.all!(c => isDigit(c)))
        throw new UsageError(bad);
    const v = (*s).to!ulong;
    if (v < min || v > maxCount)
        throw new UsageError(bad);
    return v;
}

/// The RunConfig of `run`'s flags, validated against the registry.
RunConfig parseRun(const string[] argv) pure @safe
{
    auto flags = parseFlags(argv);

    auto suite = "suite" in flags;
    if (suite is null)
        throw new UsageError("missing --suite " ~ oneOf(suiteNames));
    if (!suiteNames.canFind(*suite))
        throw new UsageError(format!"unknown suite '%s' %s"(*suite, oneOf(suiteNames)));
    foreach (f; ["work-dir", "out-dir"])
        if (f in flags)
            throw new UsageError(format!"flag --%s is a fixture that suite readbytes does not take (its fixtures: input)"(f));
    if (auto role = "role" in flags)
        if (*role != "local")
            throw new UsageError(format!"unknown value for --role: '%s' for suite readbytes, whose cells run in one process (one of: local)"(*role));
    foreach (f; ["in-fd", "out-fd"])
        if (f in flags)
            throw new UsageError(format!"flag --%s needs --role client or server, which suite readbytes does not have (its cells are local)"(f));

    RunConfig c;
    c.kase = choice(flags, "case", caseNames);
    c.lib = choice(flags, "lib", libNames);
    const caches = cachesOf(c.lib);
    const cache = "cache" in flags;
    c.cold = choice(flags, "cache", caches,
            cache !is null && cacheNames.canFind(*cache) ? " for lib " ~ c.lib : "") == "cold";
    if ("iters" !in flags)
        throw new UsageError(format!"missing --iters N (passes per sample, 1 to %d)"(maxCount));
    c.iters = countFlag(flags, "iters", 1, 1);
    c.samples = countFlag(flags, "samples", 1, 1);
    c.warmup = countFlag(flags, "warmup", 0, 0);
    auto input = "input" in flags;
    if (input is null || (*input).length == 0)
        throw new UsageError("missing --input FILE (suite readbytes reads the data file the harness made)");
    c.input = *input;
    return c;
}

/// The usage, after a usage error.
string usageText(string driver) pure @safe
{
    import std.array : replicate;

    const pad = " ".replicate(driver.length);
    return format!"usage: %s info | list\n       %s run --suite readbytes --case C --lib L --cache warm|cold\n"(driver, driver)
        ~ format!"       %s     --iters N [--samples S] [--warmup W] --input FILE [--role local]\n"(pad)
        ~ format!"  suite readbytes: --case %-(%s|%) --lib %-(%s|%) --cache %-(%s|%) (null: warm)\n"(caseNames,
                libNames, cacheNames);
}

version (unittest)
{
    private string usageError(const string[] argv)
    {
        try
            parseRun(argv);
        catch (UsageError e)
            return e.msg;
        return null;
    }

    private immutable string[] cell = ["--suite", "readbytes", "--case", "sum", "--lib", "fread",
        "--cache", "warm", "--iters", "10", "--input", "/tmp/x.pb"];

    private string[] with_(const string[] argv, string flag, string value)
    {
        string[] o = argv.dup;
        foreach (i; 0 .. o.length)
            if (o[i] == flag)
            {
                o[i + 1] = value;
                return o;
            }
        return o ~ [flag, value];
    }

    private string[] without(const string[] argv, string flag)
    {
        string[] o;
        for (size_t i = 0; i < argv.length; ++i)
            if (argv[i] == flag)
                ++i;
            else
                o ~= argv[i];
        return o;
    }
}

unittest // a good cell
{
    auto c = parseRun(cell);
    assert(c.kase == "sum" && c.lib == "fread" && !c.cold && c.iters == 10);
    assert(c.samples == 1 && c.warmup == 0 && c.input == "/tmp/x.pb");
    c = parseRun(cell ~ ["--samples=3", "--warmup", "2", "--role", "local"]);
    assert(c.samples == 3 && c.warmup == 2);
    c = parseRun(with_(with_(cell, "--cache", "cold"), "--lib", "mmfile"));
    assert(c.cold && c.lib == "mmfile");
    c = parseRun(with_(cell, "--lib", "null"));
    assert(c.lib == "null" && !c.cold);
}

unittest // every usage error names the flag or value and lists the legal ones
{
    assert(usageError(with_(cell, "--suite", "rpc")) == "unknown suite 'rpc' (one of: readbytes)");
    assert(usageError(without(cell, "--suite")) == "missing --suite (one of: readbytes)");
    assert(usageError(with_(cell, "--case", "crc")) == "unknown value for --case: 'crc' (one of: count, sum, varint)");
    assert(usageError(without(cell, "--case")) == "missing --case (one of: count, sum, varint)");
    assert(usageError(with_(cell, "--lib", "stream")) == "unknown value for --lib: 'stream' (one of: null, "
            ~ "file_rawread, by_chunk, fread, dlsym_fread, mmfile, range, fread_outparam, fread_eof_minus1)");
    assert(usageError(with_(cell, "--cache", "hot")) == "unknown value for --cache: 'hot' (one of: warm, cold)");
    assert(usageError(without(cell, "--cache")) == "missing --cache (one of: warm, cold)");
    assert(usageError(with_(with_(cell, "--lib", "null"), "--cache", "cold"))
            == "unknown value for --cache: 'cold' for lib null (one of: warm)");
    assert(usageError(cell ~ ["--block", "1MiB"]) == "unknown flag --block (flags: --suite, --case, --lib, "
            ~ "--cache, --iters, --samples, --warmup, --input)");
    assert(usageError(without(cell, "--input")) == "missing --input FILE (suite readbytes reads the data file "
            ~ "the harness made)");
    assert(usageError(with_(cell, "--input", "")) == usageError(without(cell, "--input")));
    assert(usageError(cell ~ ["--work-dir", "/tmp"]) == "flag --work-dir is a fixture that suite readbytes does "
            ~ "not take (its fixtures: input)");
    assert(usageError(cell ~ ["--role", "server"]).canFind("unknown value for --role: 'server'"));
    assert(usageError(cell ~ ["--in-fd", "3"]).canFind("flag --in-fd needs --role client or server"));
    assert(usageError(cell ~ ["--iters", "2"]) == "flag --iters given twice");
    assert(usageError(cell ~ ["--samples"]) == "flag --samples needs a value");
    assert(usageError(cell ~ ["extra"]) == "unexpected argument 'extra'");
    assert(usageError(without(cell, "--iters")).canFind("missing --iters N"));
    foreach (bad; ["0", "-1", "1e3", "", " 1", "99999999999999999999", "1048577"])
        assert(usageError(with_(cell, "--iters", bad)) == "bad value for --iters: '" ~ bad
                ~ "' (want a decimal integer from 1 to 1048576)", bad);
    assert(usageError(cell ~ ["--samples", "0"]).canFind("bad value for --samples: '0'"));
    assert(usageError(cell ~ ["--warmup", "x"]).canFind("bad value for --warmup: 'x' (want a decimal integer from 0"));
}

unittest
{
    const u = usageText("wirebench-d-gdc");
    assert(u.canFind("--lib null|file_rawread|by_chunk|fread|dlsym_fread|mmfile|range|fread_outparam|"
            ~ "fread_eof_minus1"), u);
    assert(u.canFind("--case count|sum|varint"), u);
}
